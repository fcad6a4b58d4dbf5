"""A Collector pipeline under span load: its round (runner.py, over the lab's pieces in
tracetax.lab), what the engine runs (rounds.py), its validation at submission, its terminal
tables, and the plug-in the registry holds (COLLECTOR)."""

from tracetax.subjects.collector.subject import COLLECTOR

__all__ = ["COLLECTOR"]

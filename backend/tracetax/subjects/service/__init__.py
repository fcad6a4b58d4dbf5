"""A service under HTTP load: its round (runner.py), what the engine runs (rounds.py), its
validation at submission, its terminal tables, and the plug-in the registry holds (SERVICE)."""

from tracetax.subjects.service.subject import SERVICE

__all__ = ["SERVICE"]

"""The ground floor's specs: what a user asks TraceTax to measure, parsed and validated.

What every subject's spec is (`base.py`: the engine and the submission read only that), the
service experiment spec (`service.py`) and its checks against the demo catalog (`catalog.py`),
the Collector pipeline spec (`collector.py`), the ready-made presets and the bounds every input
is checked against (`inputs.py`). Which subject a spec is, is the subjects' registry's to say
(tracetax.subjects.union). Parsing only: nothing here runs, stores or reads settings.
"""

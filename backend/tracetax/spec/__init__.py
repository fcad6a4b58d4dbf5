"""The ground floor's specs: what a user asks TraceTax to measure, parsed and validated.

The service experiment spec (`service.py`), the Collector pipeline spec (`collector.py`), the
ready-made presets and the bounds every input is checked against (`inputs.py`). Parsing only:
nothing here runs, stores or reads settings.
"""

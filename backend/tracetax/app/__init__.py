"""The use cases both the API and the CLI call: queue a run (submission), keep the engine
running in the backend (runtime), tuning runs (tunings), delete stored results (retention)."""

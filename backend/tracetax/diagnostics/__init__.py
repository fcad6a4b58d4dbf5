"""Diagnostics on top of stored experiments: overhead with confidence intervals, where the
export work runs, the span ledger, and a recommended processor setting."""

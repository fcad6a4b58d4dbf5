"""The tuner's domain logic (issue 15), free of HTTP and of the engine: which OTEL_BSP_*
settings to try for a traffic shape (derived from measured export time and span rates, not
fixed ratios), how a wall-time budget is spent on them (successive halving), the trade-off
(the Pareto front of overhead against spans kept), which setting meets the budgets (or which
budget is out of reach and what came closest), and the recommended setting as a block to paste
(environment variables, Java system properties, a Kubernetes env list) that parses back to the
same variables.
"""

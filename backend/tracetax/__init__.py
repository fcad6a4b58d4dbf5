"""TraceTax: what OpenTelemetry costs a service, measured against real backends."""

__version__ = "0.1.0"

"""The Collector pipeline lab: experiments whose subject is a Collector pipeline.

telemetrygen sends spans to a lab Collector running a pipeline variant (the configs in
collector-pipelines/lab); the engine measures that Collector's CPU and RSS and reads every
Collector's own counters to account for each span.
"""

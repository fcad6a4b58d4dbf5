"""The subjects an experiment measures, as plug-ins of one interface (base.py): a service under
HTTP load (service/) and a Collector pipeline under span load (collector/). The registry
(registry.py) is the only place that tells them apart."""

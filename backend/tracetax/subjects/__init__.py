"""The subjects an experiment measures, as plug-ins made of small parts (base.py): a service
under HTTP load (service/) and a Collector pipeline under span load (collector/). The registry
(registry.py) is the only place that tells them apart; the spec union (union.py) is built from it."""

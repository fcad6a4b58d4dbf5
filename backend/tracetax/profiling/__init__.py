"""Where the export work runs: stack samples of a service under load, folded and classified.

samplers.py runs each language's native sampler during a measured phase, folded.py holds the
folded-stack format ("root;...;leaf count"), pprof.py decodes Go CPU profiles, and
classify.py sorts each sample into request path / background and export / other SDK /
application.
"""

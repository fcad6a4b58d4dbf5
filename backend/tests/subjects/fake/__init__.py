"""A subject that is not part of the product: the proof that a subject is one folder and one
registry line (tracetax.subjects.registry.register), run through the engine and the API."""

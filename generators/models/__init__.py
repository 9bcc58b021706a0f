"""Small networks built in code with seeded weights: one module per model, each defining FAMILY (a
generators.graphs.GraphFamily). Adding a model is adding a module here."""

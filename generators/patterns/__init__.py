"""The subgraphs graph optimizers rewrite: one module per pattern, each defining FAMILY (a
generators.graphs.GraphFamily) that names the optimizer rules it targets. Adding a pattern is
adding a module here."""

"""The graph nodes, one module per node."""

"""Question sets that ship with the repository (see docs/benchmark.md)."""

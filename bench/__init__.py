"""Benchmarks and measurement scripts."""

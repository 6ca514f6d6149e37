"""The runnable measurements: `python -m bench.suites.<name>`."""

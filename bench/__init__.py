"""Benchmarks and measurement scripts.

- `bench.harness`: runs a benchmark (questions, corpus, strategies, runner, records);
- `bench.reports`: summaries, tables, plots and the headline of finished runs;
- `bench.suites`: the runnable measurements, `python -m bench.suites.<name>`;
- `bench.baselines`: peer baselines on the same models; `bench.datasets`: the sets.
"""

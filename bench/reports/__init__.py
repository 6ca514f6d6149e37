"""Reports of finished benchmark runs: summaries, tables, plots, headline."""

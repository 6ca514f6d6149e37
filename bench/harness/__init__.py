"""The benchmark harness: questions, corpus, strategies, runner, records, scoring."""

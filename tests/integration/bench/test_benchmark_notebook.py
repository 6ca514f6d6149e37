"""notebooks/benchmark.ipynb runs top to bottom on the committed results."""

from tests.notebooks import run_notebook


def test_benchmark_notebook_executes_and_draws():
    outputs = run_notebook("benchmark.ipynb", timeout=120)
    assert not [o for o in outputs if o.output_type == "error"]
    texts = [str(o.get("data", {}).get("text/markdown", "")) for o in outputs]
    assert any("| strategy | six dev sets F1 | vs single |" in t for t in texts)  # headline
    assert any("| strategy | n | EM | F1 | Acc |" in t for t in texts)
    assert any("image/png" in o.get("data", {}) for o in outputs)

"""notebooks/benchmark.ipynb runs top to bottom on the committed results."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "notebooks" / "benchmark.ipynb"


def test_benchmark_notebook_executes_and_draws():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()
    outputs = [
        o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
    ]
    assert not [o for o in outputs if o.output_type == "error"]
    texts = [str(o.get("data", {}).get("text/markdown", "")) for o in outputs]
    assert any("| strategy | n | EM | F1 | Acc |" in t for t in texts)
    assert any("image/png" in o.get("data", {}) for o in outputs)

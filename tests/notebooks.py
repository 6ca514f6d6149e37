"""Execute a notebook from notebooks/ the way CI does, and return its outputs."""

from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def run_notebook(name: str, *, timeout: int) -> list[Any]:
    """Run `notebooks/<name>` top to bottom (its folder as working dir); return every output."""
    path = NOTEBOOKS / name
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return [
        o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
    ]

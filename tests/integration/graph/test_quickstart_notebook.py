"""notebooks/quickstart.ipynb runs top to bottom with the real local model and stores."""

from tests.notebooks import run_notebook


def test_quickstart_notebook_asks_one_question_per_route():
    outputs = run_notebook("quickstart.ipynb", timeout=300)
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(str(o.get("text", "")) + str(o.get("data", {})) for o in outputs)
    assert "subgraph ircot" in text  # the mermaid diagram with the IRCoT loop
    for route in ("route A", "route B", "route C"):
        assert route in text, route

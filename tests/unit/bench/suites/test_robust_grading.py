import json
from pathlib import Path

from bench.suites.robust_grading import best_grade, lost_every_gold
from graphs.context import Context


def _write(path: Path) -> Path:
    rows = []
    for index in range(6):
        rows.append(
            {
                "id": f"q{index}",
                "dataset": "tiny",
                "hop": "multi",
                "split": "dev",
                "question": f"Who made thing {index}?",
                "answers": [f"Maker{index}"],
                "passages": [
                    {
                        "title": f"A{index}",
                        "text": f"Thing {index} by Maker{index}.",
                        "is_supporting": True,
                    },
                    {"title": f"B{index}", "text": f"Thing {index} is red.", "is_supporting": True},
                    {"title": f"C{index}", "text": f"Other {index}.", "is_supporting": False},
                ],
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_no_share_loses_nothing_and_every_share_loses_all(tmp_path: Path) -> None:
    data = [_write(tmp_path / "tiny.dev.jsonl")]
    assert lost_every_gold(data, 0.0, 0) == set()
    assert len(lost_every_gold(data, 1.0, 0)) == 6


def test_half_dropped_loses_only_questions_missing_both_gold_passages(tmp_path: Path) -> None:
    data = [_write(tmp_path / "tiny.dev.jsonl")]
    half, more = lost_every_gold(data, 0.5, 3), lost_every_gold(data, 0.75, 3)
    assert half <= more  # a larger share drops a superset
    assert 0 < len(more) < 6


class _Fake:
    def score(self, question: str, texts: list[str]) -> list[float]:
        return [0.9 if "Maker" in t else -0.4 for t in texts]


def test_best_grade_is_the_best_window_or_none_for_an_empty_retrieval() -> None:
    context = Context(grade_windows=True)
    texts = ["Thing 1 is red. It is old. It was built by Maker1 in 1900. It is big."]
    assert best_grade(_Fake(), "Who made thing 1?", texts, context) == 0.9
    assert best_grade(_Fake(), "Who made thing 1?", [], context) is None

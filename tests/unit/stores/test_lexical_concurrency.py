"""Issue 18, point 6: parallel ingestions rebuild the BM25 index without tripping on each other."""

import threading
from pathlib import Path
from typing import Any

from stores.lexical import LexicalIndex


class _Collection:
    """The part of a Chroma collection that `iter_records` reads."""

    def __init__(self, count: int) -> None:
        self.ids = [f"id{i}" for i in range(count)]

    def get(self, *, include: list[str], limit: int, offset: int) -> dict[str, Any]:
        ids = self.ids[offset : offset + limit]
        return {
            "ids": ids,
            "documents": [f"passage {i} about rivers and cities" for i in ids],
            "metadatas": [{"title": i} for i in ids],
        }


def test_twenty_parallel_rebuilds_all_succeed_and_leave_one_index(tmp_path: Path):
    folder = tmp_path / "bm25" / "documents"
    errors: list[BaseException] = []

    def rebuild() -> None:
        try:
            index = LexicalIndex(folder)
            index.mark_dirty()
            index.rebuild(_Collection(200))
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    workers = [threading.Thread(target=rebuild) for _ in range(20)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert errors == []
    fresh = LexicalIndex(folder)
    assert fresh.is_fresh(200) and fresh.load() and len(fresh.records) == 200
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "index", "stamp.json"]

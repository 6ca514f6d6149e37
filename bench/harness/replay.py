"""A finished benchmark run's retrieval, rebuilt without any LLM.

`run.json` beside a `records.jsonl` names the QA files, the seed and each strategy's Context.
The corpus is rebuilt from those files exactly as the benchmark builds it (`bench.harness.corpus`,
indexed under an index root, so a benchmark's own index is reused when the root is its), and a
record's question is retrieved again with its strategy's `top_k` and `retrieval_mode` and its
share of dropped gold: the passages the graph's first retrieval returned.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.harness.corpus import build_corpus, prepare_home
from bench.harness.data import load_questions
from bench.harness.paths import REPOSITORY
from bench.harness.records import Record
from models.errors import UserError

if TYPE_CHECKING:
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

__all__ = ["Replay", "resolve", "retriever", "run_info"]


def run_info(records_path: Path) -> dict[str, Any]:
    """Return the `run.json` beside a records file ({} when there is none)."""
    run = records_path.parent / "run.json"
    return json.loads(run.read_text(encoding="utf-8")) if run.is_file() else {}


def resolve(name: str) -> Path:
    """Return a run's data file, as given or relative to the repository."""
    for path in (Path(name), REPOSITORY / name):
        if path.is_file():
            return path.resolve()
    raise UserError(f"the run's data file {name} is missing; pass the QA files with --data")


def retriever(
    run: dict[str, Any], strategy: str, files: list[Path], share: float, root: Path
) -> "BaseRetriever":
    """Return the local retriever a strategy of the run used, its index built under `root`."""
    from stores.retrieval import make_retriever

    context = (run.get("contexts") or {}).get(strategy) or {}
    corpus = build_corpus(load_questions(files), drop_share=share, seed=int(run.get("seed", 0)))
    home = prepare_home(corpus, root)
    k, mode = int(context.get("top_k", 4)), context.get("retrieval_mode", "hybrid")
    return make_retriever(home=home, k=k, mode=mode, collection="documents")


class Replay:
    """One run's first retrievals, rebuilt per record (a retriever per strategy and share)."""

    def __init__(self, records_path: Path, *, data: Sequence[Path] = (), index_root: Path):
        """Read the run's `run.json`; its QA files win over `data` (for runs without one)."""
        self.run = run_info(records_path)
        self.files = [resolve(name) for name in self.run.get("data") or []] or list(data)
        self.index_root = index_root
        self._retrievers: dict[tuple[str, float], BaseRetriever] = {}

    def context(self, strategy: str) -> dict[str, Any]:
        """Return the Context settings the run recorded for `strategy` ({} if none)."""
        return dict((self.run.get("contexts") or {}).get(strategy) or {})

    def documents(self, record: Record) -> list["Document"]:
        """Return what the record's strategy retrieved for its question."""
        key = (record.strategy, record.drop_gold)
        if key not in self._retrievers:
            self._retrievers[key] = retriever(
                self.run, record.strategy, self.files, record.drop_gold, self.index_root
            )
        return self._retrievers[key].invoke(record.question)

"""The retrieval corpus of a benchmark run, its gold-dropping variant, and its cached index.

The local corpus is the union of the passages of the evaluated questions (plus an optional
extra corpus), de-duplicated by title and text, so every question competes with every other
question's passages. The offline "web" corpus holds every gold passage (also the ones dropped
from the local index) and any per-question web knowledge, so CRAG's web search can still
reach what the local index lost. Each corpus is indexed once into a home directory named by a
hash of its contents and reused by later runs.

A QA file that ships its documents (`bench.harness.data.documents_root`) contributes no passages:
its
documents folder is ingested whole into the local index, exactly as `acrag ingest FOLDER`
would, and nothing of it goes to the web corpus, so CRAG's web search finds nothing extra.
"""

import hashlib
import json
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.harness.data import BenchPassage, Question, web_passages

__all__ = [
    "Corpus",
    "IngestFn",
    "build_corpus",
    "dedupe",
    "gold_to_drop",
    "prepare_home",
    "read_extra",
]

logger = logging.getLogger(__name__)

LOCAL_COLLECTION = "documents"
WEB_COLLECTION = "web"
_READY = "ready.json"
_VERSION = "bench-corpus-v1"

IngestFn = Callable[[Path, Path, str], None]
"""Index one JSONL file or documents folder into a collection: (path, home, collection)."""


@dataclass(frozen=True)
class Corpus:
    """The passages of the local index and of the offline web backend."""

    local: tuple[BenchPassage, ...]
    web: tuple[BenchPassage, ...]
    dropped: int = 0
    """Gold passages removed from the local index."""
    documents: tuple[Path, ...] = ()
    """Folders ingested whole into the local index, beside the passages."""

    def digest(self) -> str:
        """Return a hash of the contents, which names the cached index."""
        sha = hashlib.sha256(_VERSION.encode())
        for name, passages in (("local", self.local), ("web", self.web)):
            sha.update(name.encode())
            for passage in passages:
                sha.update(json.dumps(passage.key).encode("utf-8"))
        for root in self.documents:
            for file in _files(root):
                sha.update(file.relative_to(root).as_posix().encode("utf-8"))
                sha.update(hashlib.sha256(file.read_bytes()).digest())
        return sha.hexdigest()[:16]


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def dedupe(passages: Iterable[BenchPassage]) -> list[BenchPassage]:
    """Keep the first passage per (title, text), skipping ones with no letters or digits.

    A passage that is gold anywhere stays marked gold.
    """
    kept: dict[tuple[str, str], BenchPassage] = {}
    for passage in passages:
        if not any(ch.isalnum() for ch in passage.text):
            continue
        old = kept.get(passage.key)
        if old is None or (passage.gold and not old.gold):
            kept[passage.key] = passage if old is None else BenchPassage(old.title, old.text, True)
    return list(kept.values())


def gold_to_drop(
    passages: Sequence[BenchPassage], share: float, *, seed: int
) -> set[tuple[str, str]]:
    """Choose `share` of the gold passages, deterministically by `seed`.

    The gold passages are shuffled once per seed and the first `round(share * n)` taken, so a
    larger share always drops a superset of what a smaller one drops.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"the share of gold to drop must lie in [0, 1], not {share}")
    gold = sorted({p.key for p in passages if p.gold})
    random.Random(seed).shuffle(gold)
    return set(gold[: round(share * len(gold))])


def read_extra(paths: Sequence[Path]) -> list[BenchPassage]:
    """Read extra corpus files: JSON lines with `title` and `text` (or with `passages`)."""
    found: list[BenchPassage] = []
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    continue
                record = json.loads(line)
                for item in record.get("passages") or [record]:
                    found.append(BenchPassage(str(item["title"]), str(item["text"])))
    return found


def build_corpus(
    questions: Sequence[Question],
    *,
    extra: Sequence[BenchPassage] = (),
    drop_share: float = 0.0,
    seed: int = 0,
) -> Corpus:
    """Build the local and web corpora, dropping `drop_share` of the gold from the local one.

    Questions whose file ships documents add their documents folder instead of passages;
    gold dropping applies to passages only.
    """
    documents = tuple(sorted({q.documents for q in questions if q.documents is not None}))
    own = [q for q in questions if q.documents is None]
    every = dedupe([p for q in own for p in q.passages] + list(extra))
    dropped = gold_to_drop(every, drop_share, seed=seed)
    local = tuple(p for p in every if p.key not in dropped)
    web = dedupe([p for p in every if p.gold] + [w for q in own for w in web_passages(q)])
    if documents and drop_share:
        logger.warning("--drop-gold leaves shipped documents whole: %s", documents)
    return Corpus(local, tuple(web), len(dropped), documents)


def _write_jsonl(path: Path, passages: Sequence[BenchPassage]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for passage in passages:
            out.write(json.dumps({"title": passage.title, "text": passage.text}) + "\n")


def _store_ingest(path: Path, home: Path, collection: str) -> None:
    from stores.ingest import ingest

    report = ingest([path], home=home, collection=collection, progress=True)
    for skipped, reason in report.skipped:
        logger.warning("not indexed: %s (%s)", skipped, reason)
    logger.info("indexed %s into %s: %s", path.name, collection, report.summary())


def prepare_home(corpus: Corpus, root: Path, *, ingest: IngestFn | None = None) -> Path:
    """Return the home directory indexing `corpus`, building it on first use.

    The home is `root/<digest>`; a `ready.json` marker written after both collections are
    indexed makes later runs skip ingestion (which is idempotent anyway, so a killed build
    resumes where it stopped).
    """
    home = root / corpus.digest()
    marker = home / _READY
    if marker.is_file():
        return home
    home.mkdir(parents=True, exist_ok=True)
    index = ingest or _store_ingest
    for name, collection, passages in (
        ("local.jsonl", LOCAL_COLLECTION, corpus.local),
        ("web.jsonl", WEB_COLLECTION, corpus.web),
    ):
        if passages:
            _write_jsonl(home / name, passages)
            index(home / name, home, collection)
    for root in corpus.documents:
        index(root, home, LOCAL_COLLECTION)  # a folder, ingested as `acrag ingest` does
    info = {"local": len(corpus.local), "web": len(corpus.web), "dropped_gold": corpus.dropped}
    marker.write_text(json.dumps({**info, "documents": [str(p) for p in corpus.documents]}))
    return home

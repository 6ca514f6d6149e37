"""Check a question set that ships its documents: every cited passage is in its file.

A set is a `questions.jsonl` in the shared QA schema next to a `docs/` folder holding the
documents. Each answerable question cites its supporting passages with `title` = the file's
path relative to `docs/`; a passage must occur in that file character for character once all
whitespace is removed (HTML text extraction puts spaces around inline tags), read the way
`acrag ingest` reads it (HTML as its visible text), and one of the answers (or aliases) must
occur in a supporting passage: as whole words after SQuAD normalisation, or as a
case-insensitive match bounded by non-word characters (for answers such as
`system_uid_max` inside `--variable=system_uid_max`). An
unanswerable question has no answers and no passages. Every package folder under `docs/`
must hold its `copyright` file. `split` is `dev` or `test`, and a `dev.jsonl` / `test.jsonl`
beside the set (one half, for `acrag eval --data`) must hold exactly that half.

The multi-turn sets (`bench.datasets.conversations`) are checked too: 2-3 turns (2-4 in the
threads set), the first already standalone, every standalone turn a question, every follow-up
leaning on the conversation (a topic switch: standalone as typed), and an answer of every turn
occurring in its corpus; the threads set also needs a `dev`/`test` split on every conversation,
both halves non-empty, a known `kind` per turn, and variants that are questions.

Run `python -m bench.datasets.check [QUESTIONS.jsonl ...]` (default: every shipped set and
the multi-turn set).
"""

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bench.datasets.conversations import (
    CORPORA,
    MULTITURN_FILE,
    THREAD_SETS,
    Conversation,
    is_question,
    load_conversations,
    missing_words,
)
from bench.harness.data import documents_root
from bench.harness.metrics import normalize_answer

__all__ = [
    "DATASETS_DIR",
    "CheckReport",
    "answer_in",
    "check_conversations",
    "check_set",
    "document_text",
    "main",
    "question_kind",
    "shipped_sets",
]

DATASETS_DIR = Path(__file__).resolve().parent
DOCS = "docs"
_REQUIRED = ("id", "dataset", "hop", "split", "question", "answers", "passages", "meta")
_SPLITS = ("dev", "test")


@dataclass
class CheckReport:
    """What a check found: problems (empty when the set is sound) and counts by kind."""

    path: Path
    problems: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        """Tell whether the set passed every check."""
        return not self.problems

    def summary(self) -> str:
        """Return one line: the counts and the verdict."""
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.counts.items()))
        verdict = "ok" if self.ok else f"{len(self.problems)} problem(s)"
        return f"{self.path}: {kinds}: {verdict}"


def _squeeze(text: str) -> str:
    return "".join(text.split())


@cache
def document_text(path: Path) -> str:
    """Return a document's text as ingestion reads it, whitespace collapsed to single spaces."""
    from stores.loaders import load_source

    return " ".join("\n".join(p.text for p in load_source(path).passages).split())


@cache
def _squeezed(path: Path) -> str:
    return _squeeze(document_text(path))


def answer_in(answer: str, passage: str) -> bool:
    """Tell whether an answer occurs in a passage: as whole normalised words, or verbatim.

    The verbatim match ignores case and whitespace runs but not word boundaries: "188" is
    not found in "1887", while "system_uid_max" is found in "--variable=system_uid_max".
    """
    normal = normalize_answer(answer)
    if normal and f" {normal} " in f" {normalize_answer(passage)} ":
        return True
    wanted = " ".join(answer.lower().split())
    pattern = rf"(?<![^\W_]){re.escape(wanted)}(?![^\W_])"
    return bool(wanted) and re.search(pattern, " ".join(passage.lower().split())) is not None


def question_kind(record: dict[str, Any]) -> str:
    """Return "single-hop", "two-hop" or "unanswerable" for a question of a shipped set."""
    if not record.get("answers"):
        return "unanswerable"
    return "two-hop" if record.get("hop") == "multi" else "single-hop"


def _answerable_problems(record: dict[str, Any], docs: Path) -> Iterator[str]:
    passages = record["passages"]
    if not passages:
        yield "an answerable question without supporting passages"
    for passage in passages:
        file = docs / str(passage.get("title", ""))
        if passage.get("is_supporting") is not True:
            yield f"passage from {passage.get('title')!r} is not marked is_supporting"
        if not file.is_file():
            yield f"no such document: {passage.get('title')!r}"
        elif _squeeze(str(passage.get("text", ""))) not in _squeezed(file):
            yield f"passage not found verbatim in {passage['title']}: {passage['text'][:60]!r}"
    texts = [str(p.get("text", "")) for p in passages]
    if not any(answer_in(str(a), text) for a in record["answers"] for text in texts):
        yield "no answer alias occurs in a supporting passage"
    if record["meta"].get("answerable") is not True:
        yield "meta.answerable should be true"


def _record_problems(record: dict[str, Any], docs: Path) -> Iterator[str]:
    missing = [key for key in _REQUIRED if key not in record]
    if missing:
        yield f"missing fields {missing}"
        return
    if record["hop"] not in ("single", "multi"):
        yield f"hop must be single or multi, not {record['hop']!r}"
    if record["split"] not in _SPLITS:
        yield f"split must be dev or test, not {record['split']!r}"
    files = record["meta"].get("files") or []
    for name in files:
        if not (docs / name).is_file():
            yield f"meta.files names a missing document {name!r}"
    if record["answers"]:
        yield from _answerable_problems(record, docs)
        if set(files) != {p.get("title") for p in record["passages"]}:
            yield "meta.files differs from the passages' titles"
    elif record["passages"] or record["meta"].get("answerable") is not False:
        yield "an unanswerable question must have no passages and meta.answerable false"


def _licence_problems(docs: Path) -> Iterator[str]:
    for package in sorted(p for p in docs.iterdir() if p.is_dir()):
        if not (package / "copyright").is_file():
            yield f"{package.name}: no copyright file"


def _split_file_problems(path: Path, records: list[dict[str, Any]]) -> Iterator[str]:
    """Yield how a `dev.jsonl` / `test.jsonl` beside the set differs from its `split` field."""
    for split in _SPLITS:
        file = path.parent / f"{split}.jsonl"
        if not file.is_file():
            continue
        lines = file.read_text(encoding="utf-8").splitlines()
        listed = sorted(str(json.loads(line).get("id")) for line in lines if line.strip())
        wanted = sorted(str(r.get("id")) for r in records if r.get("split") == split)
        if listed != wanted:
            yield f"{file.name} does not hold exactly the {split} questions of {path.name}"


def check_set(path: Path) -> CheckReport:
    """Check one question set against the documents beside it."""
    report = CheckReport(path)
    docs = documents_root(path) or path.parent / DOCS
    if not docs.is_dir():
        report.problems.append(f"no {DOCS}/ folder beside {path.name}")
        return report
    report.problems += list(_licence_problems(docs))
    seen: set[str] = set()
    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            records.append(record)
            where = f"{path.name}:{number} ({record.get('id')})"
            if record.get("id") in seen:
                report.problems.append(f"{where}: duplicate id")
            seen.add(str(record.get("id")))
            report.problems += [f"{where}: {p}" for p in _record_problems(record, docs)]
            report.counts[question_kind(record)] += 1
    report.problems += list(_split_file_problems(path, records))
    return report


def shipped_sets() -> list[Path]:
    """Return every shipped set: a `questions.jsonl` beside its `dataset.json` manifest."""
    return sorted(p for p in DATASETS_DIR.glob("*/questions.jsonl") if documents_root(p))


@cache
def _corpus_text(name: str) -> tuple[str, str]:
    """Return a corpus's whole text, whitespace collapsed, and its normalised form."""
    from stores.loaders import is_supported

    source = CORPORA[name]
    if source.is_dir():
        files = sorted(f for f in source.rglob("*") if f.is_file() and is_supported(f))
        text = " ".join(document_text(f) for f in files)
    else:
        rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
        text = " ".join(" ".join(f"{r['title']} {r['text']}".split()) for r in rows if r)
    return text, f" {normalize_answer(text)} "


def _in_corpus(answer: str, corpus: str) -> bool:
    text, normal = _corpus_text(corpus)
    return (f" {normalize_answer(answer)} " in normal) or answer_in(answer, text)


_TURN_KINDS = frozenset("person place thing event ellipsis switch meta".split())


def _turn_problems(c: Conversation) -> Iterator[str]:
    if c.turns[0].turn != c.turns[0].standalone:
        yield "the first turn must be its own standalone question"
    for t in c.turns:
        for question in (t.standalone, *t.variants):
            if not is_question(question):
                yield f"not a question: {question!r}"
        if t.unanswerable:
            if t.answers:
                yield f"an unanswerable turn has no answers: {t.turn!r}"
        elif not any(_in_corpus(a, c.corpus) for a in t.answers):
            yield f"no answer of {t.standalone!r} occurs in {c.corpus}"
    for t in c.turns[1:]:
        if t.kind == "switch" and t.standalone != t.turn:
            yield f"a topic switch is its own standalone question: {t.turn!r}"
        elif t.kind != "switch" and not missing_words(t.standalone, t.turn):
            yield f"follow-up needs nothing from the conversation: {t.turn!r}"


def _split_problems(c: Conversation) -> Iterator[str]:
    if c.split not in _SPLITS:
        yield f"split must be dev or test, not {c.split!r}"
    for t in c.turns[1:]:
        if t.kind not in _TURN_KINDS:
            yield f"unknown turn kind {t.kind!r}"


def check_conversations(path: Path = MULTITURN_FILE) -> CheckReport:
    """Check a multi-turn set: shapes, questions, follow-ups, answers found in the corpus."""
    report = CheckReport(path)
    split = path.parent.name.startswith("threads")
    most = 4 if split else 3
    for c in load_conversations(path):
        report.counts["conversations"] += 1
        report.counts["turns"] += len(c.turns)
        report.counts[c.split or "unsplit"] += 1
        problems = [] if 2 <= len(c.turns) <= most else [f"needs 2-{most} turns"]
        problems += list(_turn_problems(c))
        problems += list(_split_problems(c)) if split else []
        report.problems += [f"{c.id}: {p}" for p in problems]
    if split and not all(report.counts[s] for s in _SPLITS):
        report.problems.append("both halves (dev, test) need conversations")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Check the given sets (default: the shipped ones); exit 1 on any problem."""
    parser = argparse.ArgumentParser(prog="python -m bench.datasets.check", description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="questions.jsonl files")
    args = parser.parse_args(argv)
    if args.paths:
        reports = [check_set(p) for p in args.paths]
    else:
        sets = [check_conversations(), *map(check_conversations, THREAD_SETS.values())]
        reports = [*(check_set(p) for p in shipped_sets()), *sets]
    for report in reports:
        for problem in report.problems:
            sys.stdout.write(f"  {problem}\n")
        sys.stdout.write(report.summary() + "\n")
    return 0 if all(r.ok for r in reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())

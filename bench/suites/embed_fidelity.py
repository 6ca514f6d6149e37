"""Dense recall of a fast MiniLM precision against float32 on dev questions, same passages.

    .venv/bin/python -m bench.suites.embed_fidelity [--data ../shared/data] [--questions 60]
        [--precision bf16|int8]

For each dev file, the corpus is the union of the first N questions' passages (title and
text, as ingestion embeds them); each question retrieves its top 5 by cosine with each
precision. Prints Recall@5 of the supporting passages per precision, how many questions
changed their recall, and the mean cosine between the two precisions' vectors.
"""

import argparse
import json
from pathlib import Path

import numpy as np

from bench.harness.stores_common import DEFAULT_DATA
from models.embeddings import MiniLMEmbeddings

__all__ = ["main"]


def _recalls(questions: list[dict], passages: list[str], gold: list[set[int]], precision: str):
    model = MiniLMEmbeddings(precision=precision)  # type: ignore[arg-type]
    docs = model.encode(passages)
    asked = model.encode([q["question"] for q in questions])
    top = np.argsort(-(asked @ docs.T), axis=1)[:, :5]
    return [len(g & set(row)) / len(g) for g, row in zip(gold, top, strict=True)], docs


def main() -> None:
    """Print one Markdown row per dev file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--datasets", default="hotpotqa,2wikimultihopqa")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--precision", default=MiniLMEmbeddings().precision)
    args = parser.parse_args()
    fast = args.precision
    print(f"| dataset | questions | passages | R@5 fp32 | R@5 {fast} | changed | cosine |")  # noqa: T201
    print("|---|---:|---:|---:|---:|---:|---:|")  # noqa: T201
    for name in args.datasets.split(","):
        path = args.data / "qa" / f"{name}.dev.jsonl"
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        rows = [r for r in rows if any(p.get("is_supporting") for p in r["passages"])]
        questions = rows[: args.questions]
        texts: dict[str, int] = {}
        gold: list[set[int]] = []
        for q in questions:
            found = set()
            for p in q["passages"]:
                index = texts.setdefault(f"{p['title']}\n{p['text']}", len(texts))
                if p.get("is_supporting"):
                    found.add(index)
            gold.append(found)
        passages = list(texts)
        full, a = _recalls(questions, passages, gold, "fp32")
        quick, b = _recalls(questions, passages, gold, fast)
        changed = sum(x != y for x, y in zip(full, quick, strict=True))
        cosine = float((a * b).sum(axis=1).mean())
        print(  # noqa: T201
            f"| {name} | {len(questions)} | {len(passages)} | {np.mean(full):.3f} "
            f"| {np.mean(quick):.3f} | {changed} | {cosine:.4f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()

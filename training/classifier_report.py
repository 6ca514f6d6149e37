"""The complexity classifier's report: per-route, per-dataset, route-A and hop-kind numbers.

Pure functions of gold labels, predicted routes and records (`evaluate_classifier` runs the
model), plus `markdown_report`, which renders the report's JSON as tables.
"""

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from bench.harness.judge_metrics import accuracy
from training.labels import ROUTES
from training.route_a import ChatExample

__all__ = [
    "HopKind",
    "chat_report",
    "dataset_report",
    "hop_kind",
    "hop_mix",
    "markdown_report",
    "route_scores",
    "routing_outcome",
]

HopKind = Literal["single", "multi-hop", "unanswerable"]


def _mix(routes: Sequence[str]) -> dict[str, int]:
    counts = Counter(routes)
    return {route: counts[route] for route in ROUTES}


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def route_scores(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Return each route's precision, recall and support (None where undefined)."""
    pairs = list(zip(gold, predicted, strict=True))
    scores: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        hits = sum(g == p == route for g, p in pairs)
        support, chosen = list(gold).count(route), list(predicted).count(route)
        scores[route] = {
            "precision": _share(hits, chosen),
            "recall": _share(hits, support),
            "support": support,
            "predicted": chosen,
        }
    return scores


def routing_outcome(
    ids: Sequence[str], predicted: Sequence[str], silver: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any] | None:
    """Return what the predicted routes would have answered, against single-step and the oracle.

    Uses the questions whose label row ran all three routes (`acrag train labels
    --every-route`): Acc of always B, of the predicted route, of the oracle (any route right),
    the share of the single-to-oracle gap the routing closes, and mean seconds of each choice.
    None when no question qualifies.
    """
    rows = [
        (silver[i], route)
        for i, route in zip(ids, predicted, strict=True)
        if i in silver and set(ROUTES) <= set(silver[i].get("correct") or {})
    ]
    if not rows:
        return None

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    single = mean([float(row["correct"]["B"]) for row, _ in rows])
    routed = mean([float(row["correct"][route]) for row, route in rows])
    oracle = mean([float(any(row["correct"].values())) for row, _ in rows])
    timed = [
        (row["seconds"], route)
        for row, route in rows
        if set(ROUTES) <= set(row.get("seconds") or {})
    ]
    seconds = (
        {
            "single": mean([s["B"] for s, _ in timed]),
            "routed": mean([s[route] for s, route in timed]),
            "ircot": mean([s["C"] for s, _ in timed]),
            "questions": len(timed),
        }
        if timed
        else None
    )
    return {
        "questions": len(rows),
        "acc": {"single": single, "routed": routed, "oracle": oracle},
        "gap_closed": (routed - single) / (oracle - single) if oracle > single else None,
        "seconds": seconds,
    }


def dataset_report(
    records: Sequence[Mapping[str, Any]],
    labels: Sequence[tuple[str, str]],
    predicted: Sequence[str],
) -> dict[str, dict[str, Any]]:
    """Return per dataset: questions, accuracy (all labels and silver only), route mix."""
    rows: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        rows[record["dataset"]].append(index)
    report = {}
    for dataset, indices in sorted(rows.items()):
        silver = [i for i in indices if labels[i][1] == "silver"]
        report[dataset] = {
            "questions": len(indices),
            "accuracy": accuracy([labels[i][0] for i in indices], [predicted[i] for i in indices]),
            "silver": len(silver),
            "silver_accuracy": accuracy(
                [labels[i][0] for i in silver], [predicted[i] for i in silver]
            )
            if silver
            else None,
            "route_mix": _mix([predicted[i] for i in indices]),
        }
    return report


def hop_kind(record: Mapping[str, Any]) -> HopKind:
    """Return a question's hop kind: unanswerable (per `meta.answerable`), else by `hop`."""
    if (record.get("meta") or {}).get("answerable") is False:
        return "unanswerable"
    return "multi-hop" if record["hop"] == "multi" else "single"


def hop_mix(
    records: Sequence[Mapping[str, Any]], predicted: Sequence[str]
) -> dict[str, dict[str, dict[str, int]]]:
    """Return the predicted route mix per dataset and hop kind."""
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for record, route in zip(records, predicted, strict=True):
        groups[record["dataset"]][hop_kind(record)].append(route)
    return {
        dataset: {kind: _mix(routes) for kind, routes in sorted(kinds.items())}
        for dataset, kinds in sorted(groups.items())
    }


def chat_report(examples: Sequence[ChatExample], predicted: Sequence[str]) -> dict[str, Any]:
    """Return route A's recall on the A examples and the hard negatives' B (and A) rate.

    `by_kind` gives the predicted route mix per gold route (A inputs, B hard negatives) and kind.
    """
    pairs = list(zip(examples, predicted, strict=True))
    chat = [route for e, route in pairs if e.route == "A"]
    hard = [route for e, route in pairs if e.route == "B"]
    kinds: dict[str, dict[str, list[str]]] = {"A": defaultdict(list), "B": defaultdict(list)}
    for example, route in pairs:
        kinds[example.route][example.kind].append(route)
    return {
        "a_examples": len(chat),
        "a_recall": _share(chat.count("A"), len(chat)),
        "hard_negatives": len(hard),
        "hard_negative_b_rate": _share(hard.count("B"), len(hard)),
        "hard_negative_a_rate": _share(hard.count("A"), len(hard)),
        "by_kind": {
            gold: {kind: _mix(routes) for kind, routes in sorted(by_kind.items())}
            for gold, by_kind in kinds.items()
        },
    }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]], *, text: int = 1) -> list[str]:
    """Return a markdown table; the first `text` columns left-aligned, the rest right."""
    align = "|---" * text + "|---:" * (len(header) - text) + "|"
    lines = ["| " + " | ".join(header) + " |", align]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def _routes_table(report: Mapping[str, Any]) -> list[str]:
    silver, every = report["silver"]["routes"], report["routes"]
    rows = [
        [r, _pct(silver[r]["precision"]), _pct(silver[r]["recall"]), silver[r]["support"]]
        + [_pct(every[r]["precision"]), _pct(every[r]["recall"]), every[r]["support"]]
        for r in ROUTES
    ]
    header = ["route", "P silver", "R silver", "n silver", "P all", "R all", "n all"]
    return _table(header, rows)


def _datasets_table(datasets: Mapping[str, Any]) -> list[str]:
    rows = [
        [name, d["questions"], _pct(d["accuracy"]), d["silver"], _pct(d["silver_accuracy"])]
        + [d["route_mix"][r] for r in ROUTES]
        for name, d in datasets.items()
    ]
    return _table(["dataset", "questions", "acc", "silver", "silver acc", *ROUTES], rows)


def _chat_lines(chat: Mapping[str, Any]) -> list[str]:
    summary = (
        f"Route-A dev split: A recall {_pct(chat['a_recall'])} of {chat['a_examples']}; "
        f"hard negatives routed B {_pct(chat['hard_negative_b_rate'])}, "
        f"A {_pct(chat['hard_negative_a_rate'])} of {chat['hard_negatives']}."
    )
    inputs, hard = chat["by_kind"]["A"], chat["by_kind"]["B"]
    empty = dict.fromkeys(ROUTES, 0)
    rows = [
        [
            kind,
            *(inputs.get(kind, empty)[r] for r in ROUTES),
            *(hard.get(kind, empty)[r] for r in ROUTES),
        ]
        for kind in sorted({*inputs, *hard})
    ]
    header = ["kind", *(f"A input -> {r}" for r in ROUTES), *(f"hard neg -> {r}" for r in ROUTES)]
    return [summary, "", *_table(header, rows)]


def _hop_table(hops: Mapping[str, Mapping[str, Mapping[str, int]]]) -> list[str]:
    rows = [
        [dataset, kind, sum(mix.values()), *(mix[r] for r in ROUTES)]
        for dataset, kinds in hops.items()
        if len(kinds) > 1
        for kind, mix in kinds.items()
    ]
    return _table(["dataset", "hop kind", "questions", *ROUTES], rows, text=2) if rows else []


def _headline(report: Mapping[str, Any]) -> str:
    silver = report["silver"]
    on_silver = (
        f"3-way accuracy {_pct(silver['accuracy'])} on the {silver['questions']} "
        "silver-labelled ones, "
        if silver["questions"]
        else "no silver labels; 3-way accuracy "
    )
    return (
        f"Classifier `{report['artifact']}` on {report['questions']} questions: {on_silver}"
        f"{_pct(report['accuracy'])} on all (silver labels, else the dataset-bias label)."
    )


def outcome_lines(outcome: Mapping[str, Any] | None) -> list[str]:
    """The routing outcome (`routing_outcome`) as a markdown paragraph; none without one."""
    if not outcome:
        return []
    acc, seconds, gap = outcome["acc"], outcome["seconds"], outcome["gap_closed"]
    closed = f"{_pct(gap)} of the gap" if gap is not None else "no gap to close"
    timing = (
        f"seconds per question on the {seconds['questions']} timed by all three: single "
        f"{seconds['single']:.1f}, routed {seconds['routed']:.1f}, IRCoT {seconds['ircot']:.1f}"
        if seconds
        else "no uncached timing for all three routes"
    )
    return [
        f"Routing outcome on the {outcome['questions']} questions whose three routes all ran: "
        f"Acc single {_pct(acc['single'])}, routed {_pct(acc['routed'])}, oracle "
        f"{_pct(acc['oracle'])} ({closed}); {timing}.",
        "",
    ]


def markdown_report(report: Mapping[str, Any]) -> str:
    """Render `evaluate_classifier`'s report as markdown tables."""
    lines = [_headline(report), "", *outcome_lines(report.get("outcome")), *_routes_table(report)]
    lines.append("")
    lines += [*_datasets_table(report["datasets"]), "", *_chat_lines(report["route_a"])]
    if hop_lines := _hop_table(report["hop_kinds"]):
        lines += ["", "Predicted route mix by hop kind (datasets with several kinds):", ""]
        lines += hop_lines
    return "\n".join(lines) + "\n"

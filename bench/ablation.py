"""What each channel and adjuster of recall buys on LoCoMo: `python -m bench.locomo --ablate`.

LoCoMo is stored once (as bench.locomo stores it); then every question is asked under the
default plan and under the plan without each channel and each adjuster in turn
(`settings.recall_off`, engine/recall/plan.py), reopening the same memory for each. A row per
plan: R@5 and R@10 overall and R@5 per category, the change of R@5 against the default, and
the recall's p50 in this run.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo_data import CATEGORIES, recall_at, turns_of
from engine import Memory, Settings
from engine.recall.plan import ADJUSTERS, CHANNELS

__all__ = ["ablation_table", "run_ablation"]

PLANS: list[tuple[str, tuple[str, ...]]] = [("default", ())] + [
    (f"without {name}", (name,)) for name in (*CHANNELS, *ADJUSTERS)
]


def _settings(data_dir: Path, off: tuple[str, ...]) -> Settings:
    # Every turn kept, as bench.locomo keeps them; recalls leave no access marks behind, so
    # that one plan's questions cannot change the next plan's answers.
    return Settings(data_dir=data_dir, importance_threshold=0.0, track_access=False, recall_off=off)


def run_ablation(data: Path, conversations: int | None = None) -> dict[str, Any]:
    samples = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    with tempfile.TemporaryDirectory(prefix="hindsight-ablation-") as scratch:
        where = Path(scratch)
        asked: list[tuple[str, str, list[str], int, str, dict[str, str]]] = []
        with Memory.open(settings=_settings(where, ())) as memory:
            for number, sample in enumerate(samples):
                namespace = f"locomo-{number}"
                items = turns_of(sample)
                results = memory.store_many([{**i, "namespace": namespace} for i in items])
                dia_of = {r.id: i["metadata"]["dia_id"] for r, i in zip(results, items, strict=True)}
                last = max(datetime.fromisoformat(i["occurred_at"].rstrip("Z")) for i in items)
                now = (last + timedelta(days=1)).isoformat() + "Z"
                asked += [(namespace, qa["question"], list(qa.get("evidence") or []),
                           int(qa["category"]), now, dia_of) for qa in sample["qa"]]  # fmt: skip
                print(f"stored conversation {number + 1}/{len(samples)}", file=sys.stderr)
        rows = {}
        for label, off in PLANS:
            rows[label] = _ask(where, off, asked)
            print(f"{label}: R@5 {rows[label]['R@5']}", file=sys.stderr)
    return {"questions": len(asked), "plans": rows}


def _ask(where: Path, off: tuple[str, ...], asked: list[tuple[str, str, list[str], int, str, dict[str, str]]]) -> dict[str, Any]:
    scored: list[tuple[int, float, float]] = []
    latencies = []
    with Memory.open(settings=_settings(where, off)) as memory:
        for namespace, question, evidence, category, now, dia_of in asked:
            started = time.perf_counter()
            cards = memory.recall(question, namespace=namespace, top_k=10, now=now)
            latencies.append((time.perf_counter() - started) * 1000)
            found = [dia_of.get(card.id, "") for card in cards]
            scored.append((category, recall_at(found, evidence, 5), recall_at(found, evidence, 10)))

    def mean(values: list[float]) -> float:
        return round(100 * statistics.fmean(values), 1) if values else 0.0

    latencies.sort()
    return {
        "R@5": mean([r5 for _, r5, _ in scored]),
        "R@10": mean([r10 for _, _, r10 in scored]),
        "by_category_R@5": {name: mean([r5 for c, r5, _ in scored if c == cat])
                            for cat, name in CATEGORIES.items()},  # fmt: skip
        "p50_ms": round(latencies[len(latencies) // 2], 2) if latencies else None,
    }


def ablation_table(result: dict[str, Any]) -> str:
    names = list(CATEGORIES.values())
    head = f"{'plan':<26}{'R@5':>7}{'ΔR@5':>7}{'R@10':>7}" + "".join(f"{n:>13}" for n in names) + f"{'p50 ms':>9}"
    base = result["plans"]["default"]["R@5"]
    lines = [head]
    for label, row in result["plans"].items():
        delta = "" if label == "default" else f"{row['R@5'] - base:+.1f}"
        lines.append(f"{label:<26}{row['R@5']:>7.1f}{delta:>7}{row['R@10']:>7.1f}"
                     + "".join(f"{row['by_category_R@5'][n]:>13.1f}" for n in names)
                     + f"{row['p50_ms']:>9.2f}")  # fmt: skip
    lines.append(f"{result['questions']} questions; R@5 per category; p50 of recall in this run.")
    return "\n".join(lines)

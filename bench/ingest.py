"""Ingest of real text: LoCoMo's turns stored by `store_many` on three paths in one process,
with the R@k each path's memory gives: each turn's vector made by its own model pass
(`embed_whole`) with batches in bf16 (float32 on a CPU without AVX-512 BF16), the path before
the two others; the mean of its sentences' vectors, same batches; and that mean with every
text in int8 (the default, `embedder_precision` auto).

    python -m bench.ingest [--data ../shared/data/locomo/locomo10.json] [--conversations N]
                           [--k 5,10] [--json]

The memories are open side by side and warmed first (the models load once per process), and
each conversation is stored by each in turn, the first rotating, so that none pays a load
nor owns a quieter minute of the machine. Each stores every turn
(`importance_threshold` 0, as bench.locomo). R@k follows bench.locomo: every question asked
the day after the conversation, LoCoMo's evidence turns as the relevant set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo import DEFAULT_DATA
from bench.locomo_data import CATEGORIES, recall_at, turns_of
from engine import Memory, Settings
from engine.embed import cpu_has_bf16

_FLOAT = "bfloat16" if cpu_has_bf16() else "float32"  # the faster float on this CPU
# The settings of the path each variant names; the first is the baseline.
VARIANTS: dict[str, dict[str, Any]] = {
    f"own pass (embed_whole), {_FLOAT}": {"embed_whole": True, "embedder_precision": _FLOAT},
    f"sentences' mean, {_FLOAT}": {"embed_whole": False, "embedder_precision": _FLOAT},
    "sentences' mean, int8 (the default)": {"embed_whole": False, "embedder_precision": "auto"},
}


@contextmanager
def _memories() -> Iterator[dict[str, Memory]]:
    with ExitStack() as stack:
        opened = {}
        for name, chosen in VARIANTS.items():
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hindsight-ingest-")))
            settings = Settings(data_dir=scratch, importance_threshold=0.0, track_access=False, **chosen)
            opened[name] = stack.enter_context(Memory.open(settings=settings))
        yield opened


def run(data: Path, conversations: int | None, ks: list[int]) -> dict[str, Any]:
    samples = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    seconds = dict.fromkeys(VARIANTS, 0.0)
    scores: dict[str, list[tuple[int, dict[int, float]]]] = {name: [] for name in VARIANTS}
    turns = 0
    with _memories() as memories:
        for memory in memories.values():
            memory.warm()
        for number, sample in enumerate(samples):
            items = [{**i, "namespace": f"locomo-{number}"} for i in turns_of(sample)]
            turns += len(items)
            names = list(VARIANTS)
            order = names[number % len(names) :] + names[: number % len(names)]
            for name in order:
                started = time.perf_counter()
                results = memories[name].store_many(items)
                seconds[name] += time.perf_counter() - started
                dia_of = {r.id: i["metadata"]["dia_id"] for r, i in zip(results, items, strict=True)}
                scores[name] += _asked(memories[name], sample, f"locomo-{number}", dia_of, items, ks)
            print(f"conversation {number + 1}/{len(samples)}: {len(items)} turns", file=sys.stderr)
    baseline = turns / seconds[next(iter(VARIANTS))]
    return {
        "turns": turns,
        "questions": len(scores[next(iter(VARIANTS))]),
        "variants": {
            name: {
                "turns_per_s": round(turns / seconds[name], 1),
                "vs_own_pass": round(turns / seconds[name] / baseline, 2),
                **_summary(scores[name], ks),
            }
            for name in VARIANTS
        },
    }


def _asked(
    memory: Memory, sample: dict[str, Any], namespace: str, dia_of: dict[str, str],
    items: list[dict[str, Any]], ks: list[int],
) -> list[tuple[int, dict[int, float]]]:  # fmt: skip
    last = max(datetime.fromisoformat(i["occurred_at"].rstrip("Z")) for i in items)
    asked_at = (last + timedelta(days=1)).isoformat() + "Z"
    rows = []
    for qa in sample["qa"]:
        cards = memory.recall(qa["question"], namespace=namespace, top_k=max(ks), now=asked_at)
        found = [dia_of.get(c.id, "") for c in cards]
        evidence = list(qa.get("evidence") or [])
        rows.append((int(qa["category"]), {k: recall_at(found, evidence, k) for k in ks}))
    return rows


def _summary(rows: list[tuple[int, dict[int, float]]], ks: list[int]) -> dict[str, Any]:
    def mean(values: list[float]) -> float | None:
        return round(100 * statistics.fmean(values), 1) if values else None

    return {
        **{f"R@{k}": mean([r[k] for _, r in rows]) for k in ks},
        "single-hop R@5": mean([r[5] for c, r in rows if CATEGORIES.get(c) == "single-hop" and 5 in r]),
    }


def table(result: dict[str, Any], ks: list[int]) -> str:
    head = ["path", "turns/s", "vs own pass", *(f"R@{k}" for k in ks), "single-hop R@5"]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for name, row in result["variants"].items():
        cells = [name, str(row["turns_per_s"]), f"{row['vs_own_pass']}x", *(str(row[f"R@{k}"]) for k in ks),
                 str(row["single-hop R@5"])]  # fmt: skip
        lines.append(" | ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", type=int, default=None, help="the first N conversations only")
    parser.add_argument("--k", default="5,10", help="cut-offs, comma-separated (5 is always reported)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ks = sorted({5, *(int(k) for k in args.k.split(",") if k.strip())})
    if not args.data.exists():
        raise SystemExit(f"--data: no file at {args.data}")
    result = run(args.data, args.conversations, ks)
    print(json.dumps(result, indent=2) if args.json else table(result, ks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

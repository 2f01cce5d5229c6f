"""A first quick speed check on the embedded default.

    python -m bench.quick [--episodes 10000] [--queries 50] [--json]

Generates a seeded synthetic multi-session corpus, then measures `store_many` episodes/s,
recall latency (p50/p95, query embedding included) and, as the baseline in the same run,
a bare dense search on the same vector store with the same query embeddings.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from typing import Any

from engine import Memory
from engine.embed import MiniLMEmbedder

PEOPLE = ["Alice", "Bob", "Dana", "Marco", "Priya", "Chen Wei", "Li Na", "Omar", "Sofia", "Kenji"]
PROJECTS = ["Atlas", "Harbor", "Kestrel", "Nimbus", "Orion", "Quartz", "Sable", "Tundra"]
TOPICS = [
    "the database migration", "the launch date", "the mobile release", "the budget review",
    "the security audit", "the hiring plan", "the API redesign", "the data pipeline",
]
TEMPLATES = [
    "{p} said {t} for Project {j} slipped by {n} days.",
    "We decided to move {t} of {j} to PostgreSQL after {p} benchmarked it.",
    "{p} needs to finish {t} before the {j} demo on day {n}.",
    "The {j} team spent ${n}00 on {t} this week.",
    "ok thanks {p}",
    "{p} thinks {t} is blocked by the {j} vendor contract.",
]


def corpus(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    items = []
    for i in range(count):
        template = rng.choice(TEMPLATES)
        items.append(
            {
                "content": template.format(
                    p=rng.choice(PEOPLE), t=rng.choice(TOPICS), j=rng.choice(PROJECTS), n=rng.randint(2, 90)
                ),
                "session_id": f"session-{i // 20}",
                "role": rng.choice(["user", "assistant"]),
                "occurred_at": 1_760_000_000 + i * 600,
            }
        )
    return items


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    items = corpus(args.episodes)
    rng = random.Random(11)
    queries = [
        f"What did {rng.choice(PEOPLE)} say about {rng.choice(TOPICS)} for {rng.choice(PROJECTS)}?"
        for _ in range(args.queries)
    ]
    with tempfile.TemporaryDirectory(prefix="hindsight-bench-") as where, Memory.open(where) as memory:
        memory.recall("warm up the models")
        start = time.perf_counter()
        memory.store_many(items)
        store_seconds = time.perf_counter() - start

        recall_ms = []
        for query in queries:
            t0 = time.perf_counter()
            memory.recall(query, top_k=5)
            recall_ms.append((time.perf_counter() - t0) * 1000)

        # Baseline: the same vector store, bare dense search with query embedding included.
        embedder = MiniLMEmbedder()
        vectors = memory._vectors  # the benchmark measures the store under the façade
        base_ms = []
        for query in queries:
            t0 = time.perf_counter()
            vectors.search_dense("default", embedder.embed([query])[0], 5)
            base_ms.append((time.perf_counter() - t0) * 1000)

    row = {
        "episodes": args.episodes,
        "store_many_eps_per_s": round(args.episodes / store_seconds, 1),
        "recall_p50_ms": round(statistics.median(recall_ms), 1),
        "recall_p95_ms": round(percentile(recall_ms, 0.95), 1),
        "baseline_p50_ms": round(statistics.median(base_ms), 1),
        "baseline_p95_ms": round(percentile(base_ms, 0.95), 1),
    }
    row["recall_vs_baseline_p50"] = round(row["recall_p50_ms"] / row["baseline_p50_ms"], 2)
    if args.json:
        print(json.dumps(row))
        return
    width = max(len(k) for k in row)
    print("hindsight quick speed check (embedded: Ladybug + Qdrant Edge, MiniLM on CPU)")
    for key, value in row.items():
        print(f"  {key:<{width}}  {value}")


if __name__ == "__main__":
    main()

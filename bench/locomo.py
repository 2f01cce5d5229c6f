"""LoCoMo retrieval benchmark: turn-level R@k of hindsight's recall against BM25 and dense baselines.

    python -m bench.locomo [--data ../shared/data/locomo/locomo10.json] [--k 5,10,25]
                           [--conversations N] [--sample ID] [--json] [--ablate]

Each conversation goes into its own namespace of one fresh memory: one episode per turn
(`speaker: text`, the image caption appended), the session date as the episode time (turns a
minute apart), the speaker as role. Every question is asked with `now` the day after the
conversation. R@k (LoCoMo's definition): the share of a question's evidence turns found among
the top k, averaged over questions; malformed evidence ids count as misses, empty evidence as
recall 1. The baselines run in the same process on the same turns: BM25 alone (Okapi, the
engine's tokenizer) and dense alone (the engine's embedder, exact cosine). The data is read
from its path and never copied: its licence (CC BY-NC 4.0) allows benchmarking only.

Questions whose evidence spans two or more sessions are also scored by session: recall_all@k
is the share of them with every evidence session in the top k. `--data
bench/data/bilingual.json` runs the same harness on hindsight's own English and Chinese dated
chats (bench/data/README.md).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.ablation import ablation_table, run_ablation
from bench.locomo_data import CATEGORIES, recall_at, turns_of
from bench.misses import CLASSES, miss_class, shares
from bench.stability import Stability
from engine import Memory, Settings
from engine.embed import Embedder, embedder_for
from engine.embed.multilingual import needs_multilingual
from engine.text import tokenize

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo10.json"
# Misses are classed at the cut-off the multi-hop target is set at (R@10).
MISS_K = 10
# The first cards compared between a small and a large top_k (`bench.stability`).
STABLE_K, LARGE_K = 5, 50


@contextmanager
def scratch_memory(prefix: str, **overrides: Any) -> Iterator[Memory]:
    """A fresh memory in a temporary directory that keeps every turn: a benchmark turn
    skipped as small talk could never be found. `overrides` are further settings."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        settings = Settings(data_dir=Path(scratch), importance_threshold=0.0, track_access=False, **overrides)
        with Memory.open(settings=settings) as memory:
            yield memory


_DIA = re.compile(r"^D(\d+):\d+$")


def sessions_of(dia_ids: list[str]) -> set[int]:
    """The session numbers of LoCoMo turn ids ("D3:12" is session 3); malformed ids none."""
    return {int(m.group(1)) for d in dia_ids if (m := _DIA.match(d.strip()))}


def recall_all(found: list[str], evidence: list[str], k: int) -> float:
    """1 when every session holding evidence has a turn in the top k, else 0: what a question
    spread over sessions ("how many ... in total") needs to be answered at all."""
    return float(sessions_of(evidence) <= sessions_of(found[:k]))


class BM25:
    """Okapi BM25 over the engine's tokens: the keyword baseline."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(tokenize(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = statistics.fmean(self.lengths) if self.lengths else 1.0
        frequency: Counter[str] = Counter()
        for doc in self.docs:
            frequency.update(doc.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
        self.k1, self.b = k1, b

    def top(self, query: str, k: int) -> list[int]:
        terms = [t for t in tokenize(query) if t in self.idf]
        scores = []
        for i, doc in enumerate(self.docs):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
            score = sum(self.idf[t] * doc[t] * (self.k1 + 1) / (doc[t] + norm) for t in terms if t in doc)
            scores.append((score, -i))
        return [-i for _, i in sorted(scores, reverse=True)[:k]]


class DenseBaseline:
    """Exact cosine in the space recall's vector channel searches: the main model's, or for
    a query in Chinese the multilingual model's, over the texts that have a vector there."""

    def __init__(self, embedder: Embedder, texts: list[str]) -> None:
        self._embedder, self._second = embedder, embedder.multilingual
        self._vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
        self._rows = [i for i, text in enumerate(texts) if self._second and needs_multilingual(text)]
        picked = [texts[i] for i in self._rows]
        self._multilingual = np.asarray(self._second.embed(picked) if self._second and picked else [])

    def top(self, query: str, k: int) -> list[int]:
        if self._second is not None and needs_multilingual(query):
            if not self._rows:
                return []
            vector = np.asarray(self._second.embed([query])[0], dtype=np.float32)
            return [self._rows[int(i)] for i in np.argsort(-(self._multilingual @ vector))[:k]]
        vector = np.asarray(self._embedder.embed([query])[0], dtype=np.float32)
        return [int(i) for i in np.argsort(-(self._vectors @ vector))[:k]]


def run(
    data: Path, ks: list[int], conversations: int | None, sample_id: str | None = None
) -> dict[str, Any]:
    samples = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    if sample_id is not None:
        samples = [s for s in samples if s.get("sample_id") == sample_id]
        if not samples:
            raise SystemExit(f"--sample: no conversation has sample_id {sample_id!r}")
    embedder = embedder_for("minilm", multilingual=Settings().multilingual_embedder)
    kmax = max(ks)
    scores: dict[str, list[tuple[int, dict[int, float]]]] = {"system": [], "bm25": [], "dense": []}
    # Questions whose evidence spans two or more sessions: recall_all@k per system.
    spread: dict[str, list[tuple[int, dict[int, float]]]] = {"system": [], "bm25": [], "dense": []}
    latencies: dict[str, list[float]] = {"system": [], "bm25": [], "dense": []}
    misses: dict[int, Counter[str]] = {}  # evidence turns not in the top MISS_K, by class
    stability = Stability(STABLE_K)
    stored = 0
    ingest_seconds = 0.0
    with scratch_memory("hindsight-locomo-") as memory:
        for number, sample in enumerate(samples):
            namespace = f"locomo-{number}"
            items = turns_of(sample)
            started = time.perf_counter()
            results = memory.store_many([{**i, "namespace": namespace} for i in items])
            ingest_seconds += time.perf_counter() - started
            stored += len(items)
            dia_of = {r.id: i["metadata"]["dia_id"] for r, i in zip(results, items, strict=True)}
            dia_ids = [i["metadata"]["dia_id"] for i in items]
            texts = [i["content"] for i in items]
            turn_text = dict(zip(dia_ids, texts, strict=True))
            speakers = frozenset(t for i in items for t in tokenize(i.get("role") or ""))
            bm25 = BM25(texts)
            dense = DenseBaseline(embedder, texts)
            last = max(datetime.fromisoformat(i["occurred_at"].rstrip("Z")) for i in items)
            asked_at = (last + timedelta(days=1)).isoformat() + "Z"
            for qa in sample["qa"]:
                evidence = list(qa.get("evidence") or [])
                category = int(qa["category"])
                started = time.perf_counter()
                cards = memory.recall(qa["question"], namespace=namespace, top_k=kmax, now=asked_at)
                latencies["system"].append((time.perf_counter() - started) * 1000)
                found = [dia_of.get(c.id) or str(c.metadata.get("dia_id", "")) for c in cards]
                stability.add(qa["question"], *(
                    memory.recall(qa["question"], namespace=namespace, top_k=k, now=asked_at)
                    for k in (STABLE_K, LARGE_K)), cards)  # fmt: skip
                scores["system"].append((category, {k: recall_at(found, evidence, k) for k in ks}))
                started = time.perf_counter()
                lexical = [dia_ids[i] for i in bm25.top(qa["question"], kmax)]
                latencies["bm25"].append((time.perf_counter() - started) * 1000)
                scores["bm25"].append((category, {k: recall_at(lexical, evidence, k) for k in ks}))
                started = time.perf_counter()
                nearest = dense.top(qa["question"], kmax)
                latencies["dense"].append((time.perf_counter() - started) * 1000)
                semantic = [dia_ids[i] for i in nearest]
                scores["dense"].append((category, {k: recall_at(semantic, evidence, k) for k in ks}))
                for missed in set(evidence) - set(found[:MISS_K]):
                    misses.setdefault(category, Counter())[miss_class(
                        qa["question"], str(qa.get("answer", "")), turn_text.get(missed), speakers)] += 1
                if len(sessions_of(evidence)) >= 2:
                    for name, ranked in (("system", found), ("bm25", lexical), ("dense", semantic)):
                        spread[name].append((category, {k: recall_all(ranked, evidence, k) for k in ks}))
            print(f"conversation {number + 1}/{len(samples)}: {len(items)} turns, "
                  f"{len(sample['qa'])} questions", file=sys.stderr)  # fmt: skip

    def summary(rows: list[tuple[int, dict[int, float]]], measure: str = "R") -> dict[str, Any]:
        def mean(values: list[float]) -> float | None:
            return round(100 * statistics.fmean(values), 1) if values else None

        out: dict[str, Any] = {f"{measure}@{k}": mean([r[k] for _, r in rows]) for k in ks}
        out["by_category"] = {
            name: {f"{measure}@{k}": mean([r[k] for c, r in rows if c == cat]) for k in ks}
            for cat, name in CATEGORIES.items()
            if any(c == cat for c, _ in rows)
        }
        return out

    def percentile(values: list[float], share: float) -> float | None:
        # Microseconds kept: BM25 over a tiny conversation answers in a few on a fast CPU.
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3) if ordered else None

    return {
        **{name: {**summary(rows), "query_p50_ms": percentile(latencies[name], 0.5),
                  "query_p95_ms": percentile(latencies[name], 0.95)}
           for name, rows in scores.items()},
        "multi_session": {
            "questions": len(spread["system"]),
            **{name: summary(rows, "recall_all") for name, rows in spread.items()},
        },
        f"misses@{MISS_K}": {CATEGORIES[c]: {"turns": sum(n.values()), **shares(n)}
                              for c, n in sorted(misses.items())},  # fmt: skip
        "questions": len(scores["system"]),
        "stability": stability.summary(),
        "turns": stored,
        "ingest_eps_per_s": round(stored / ingest_seconds, 1) if ingest_seconds else None,
        "query_p50_ms": percentile(latencies["system"], 0.5),
        "query_p95_ms": percentile(latencies["system"], 0.95),
    }


def table(result: dict[str, Any], ks: list[int]) -> str:
    head = f"{'':<14}" + "".join(f"{name + ' R@' + str(k):>14}" for name in ("system", "bm25", "dense") for k in ks)
    lines = [head]
    rows = [("overall", {n: result[n] for n in ("system", "bm25", "dense")})]
    for category in CATEGORIES.values():
        if category in result["system"]["by_category"]:
            rows.append((category, {n: result[n]["by_category"][category] for n in ("system", "bm25", "dense")}))
    for label, values in rows:
        lines.append(f"{label:<14}" + "".join(f"{values[n][f'R@{k}']:>14.1f}" for n in ("system", "bm25", "dense") for k in ks))
    lines.append(
        f"{'p50 / p95 ms':<14}"
        + "".join(f"{result[n]['query_p50_ms']:.1f} / {result[n]['query_p95_ms']:.1f}".rjust(14 * len(ks))
                  for n in ("system", "bm25", "dense"))
    )  # fmt: skip
    spread = result["multi_session"]
    lines.append(f"{'multi-session':<14}" + "".join(
        f"{'-' if spread[n][f'recall_all@{k}'] is None else spread[n][f'recall_all@{k}']:>14}"
        for n in ("system", "bm25", "dense") for k in ks))  # fmt: skip
    lines.append(f"evidence turns missed at {MISS_K}, share by class (bench/misses.py):")
    lines.append(f"{'':<14}{'turns':>8}" + "".join(f"{name:>16}" for name in CLASSES))
    for category, row in result[f"misses@{MISS_K}"].items():
        lines.append(f"{category:<14}{row['turns']:>8}" + "".join(f"{row[n]:>16}" for n in CLASSES))
    stable = result["stability"]
    lines.append(
        f"first {stable['k']} cards the same at top_k {STABLE_K}, {LARGE_K} and {max(ks)}: "
        f"{stable['first_k_agree']}% of {stable['questions']} questions; the most older cards "
        f"one card supersedes: {stable['most_superseded']}"
    )
    lines.append(
        f"{result['questions']} questions over {result['turns']} turns; ingest "
        f"{result['ingest_eps_per_s']} turns/s. Latency: system = hindsight recall (query "
        "embedding, every channel, reranking); bm25 = pure-Python Okapi over the "
        "conversation in memory; dense = query embedding in the vector channel's space "
        "(MiniLM; USE multilingual for a Chinese query) + exact numpy cosine. multi-session: "
        f"of the {spread['questions']} questions whose evidence spans two or more sessions, "
        "the share with every evidence session in the top k (recall_all@k)."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--k", default="5,10,25", help="comma-separated cut-offs")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--sample", help="only the conversation with this sample_id")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--ablate", action="store_true",
                        help="store once, then ask under the default plan and without each channel "
                        "and adjuster in turn (bench/ablation.py)")  # fmt: skip
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"LoCoMo data not found at {args.data}; pass --data PATH. Skipping.", file=sys.stderr)
        return 0
    try:
        ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    except ValueError:
        parser.error("--k: comma-separated positive integers, e.g. 5,10,25")
    if not ks or min(ks) < 1:
        parser.error("--k: comma-separated positive integers, e.g. 5,10,25")
    if args.ablate:
        ablated = run_ablation(args.data, args.conversations)
        print(json.dumps(ablated) if args.json else ablation_table(ablated))
        return 0
    result = run(args.data, ks, args.conversations, args.sample)
    print(json.dumps(result) if args.json else table(result, ks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

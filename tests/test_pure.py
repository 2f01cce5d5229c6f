"""Pure pipeline steps: tokens, names, extraction, importance, fusion and decay."""

from __future__ import annotations

import doctest
import importlib
import random
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.ingest.extract import find_decisions, find_numbers, find_todos
from engine.recall.fusion import Scored, competition_ranks, decay_factor, fuse, importance_factor
from engine.recall.time_query import time_query
from engine.text import bm25_document, canonical_name, tokenize

ROOT = Path(__file__).parent.parent
# Every module with an example in a docstring, found rather than listed: a new one is run too.
DOCTEST_MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for package in ("engine", "graph_schema", "mcp_server", "bench")
    for path in (ROOT / package).rglob("*.py")
    if ">>>" in path.read_text(encoding="utf-8")
)


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0  # a module whose examples all say +SKIP attempts none


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We decided to use Postgres.", True),
        ("Let's go with the blue design", True),
        ("The plan changed to weekly releases.", True),
        ("I'm going with option B", True),
        ("我们决定下周上线", True),
        ("预算改成50万", True),
        ("就这么定了", True),
        ("We are still deciding.", False),
        ("What did you have for lunch?", False),
        ("还没想好", False),
    ],
)
def test_decisions(text: str, expected: bool) -> None:
    assert bool(find_decisions(text)) is expected


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("预算改成50万", 500_000, "CNY"),
        ("The budget is $50,000", 50_000, "USD"),
        ("latency went to 120ms", 120, "ms"),
        ("3.5 million users", 3_500_000, None),
        ("growth of 30%", 30, "%"),
        ("花了200元", 200, "CNY"),
        ("2亿", 200_000_000, None),
    ],
)
def test_numbers(text: str, value: float, unit: str | None) -> None:
    found = find_numbers(text)
    assert found and found[0].value == pytest.approx(value) and found[0].unit == unit


def test_todos() -> None:
    assert find_todos("TODO: rotate keys") == ["TODO: rotate keys"]
    assert find_todos("Remember to email Bob. Nice weather.") == ["Remember to email Bob."]
    assert find_todos("别忘了交报告") == ["别忘了交报告"]
    assert find_todos("The sky is blue.") == []


def test_tokenize_mixes_languages_and_drops_stopwords() -> None:
    assert tokenize("The projects: 我们决定把预算改成50万") == ["project", "决定", "预算", "改成", "50", "万"]
    assert tokenize("ERR-42 in v2.3") == ["err-42", "v2.3"]


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("Project Atlas", "project atlas"), ("ＡＣＭＥ Corp.", "acme corp"), ("Dr. Who", "who"),
     ("the Beatles", "beatles"), ("张伟先生", "张伟")],
)
def test_canonical_names(name: str, canonical: str) -> None:
    assert canonical_name(name) == canonical


def test_bm25_saturates_and_normalises_length() -> None:
    _, once = bm25_document({"a": 1.0}, 1.2, 0.75, 10)
    _, thrice = bm25_document({"a": 3.0}, 1.2, 0.75, 10)
    assert once[0] < thrice[0] < 3 * once[0]
    # a neighbour's share of a term counts less than the episode's own mention
    _, shared = bm25_document({"a": 0.5}, 1.2, 0.75, 10)
    assert shared[0] < once[0]


def test_rank_ties_share_a_rank() -> None:
    ranked = competition_ranks([Scored(id="a", score=0.5), Scored(id="b", score=0.5)])
    assert [rank for _, rank in ranked] == [1, 1]


def test_fuse_rewards_agreement_between_channels() -> None:
    fused = fuse(
        {
            "vector": [Scored(id="both", score=0.9), Scored(id="one", score=0.95)],
            "keyword": [Scored(id="both", score=3.0)],
        },
        {"vector": 1.0, "keyword": 1.0},
        rrf_k=60,
        rrf_share=0.5,
    )
    assert fused["both"][0] > fused["one"][0]
    assert {h.channel for h in fused["both"][1]} == {"vector", "keyword"}
    assert all(0 < score <= 1 for score, _ in fused.values())


def test_decay_halves_per_half_life_above_floor() -> None:
    day = 86_400.0
    assert decay_factor(0, half_life_days=30, floor=0.2) == 1.0
    assert decay_factor(30 * day, half_life_days=30, floor=0.0) == pytest.approx(0.5)
    assert decay_factor(3000 * day, half_life_days=30, floor=0.2) == pytest.approx(0.2)
    assert decay_factor(-5 * day, half_life_days=30, floor=0.2) == 1.0
    assert importance_factor(1.0, weight=0.3) == 1.0


@pytest.mark.parametrize(
    ("query", "intent"),
    [("what did we say last time?", True), ("上次的预算", True), ("之前说过什么", True),
     ("what happened yesterday", True), ("which database?", False), ("预算是多少", False)],
)
def test_wants_latest(query: str, intent: bool) -> None:
    assert time_query(query, now=1.7e9).wants_latest is intent


@pytest.mark.parametrize(
    ("query", "asks"),
    [("When did Nate get his turtles?", True), ("what year did we launch", True),
     ("Atlas 什么时候上线", True), ("哪天开的会", True), ("which database?", False),
     ("whenever you like, what is the budget", False)],
)
def test_asks_when(query: str, asks: bool) -> None:
    assert time_query(query, now=1.7e9).asks_when is asks


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [("What was Sam doing on December 4, 2023?", "2023-12-04", "2023-12-05"),
     ("what did we decide on 2024-02-29", "2024-02-29", "2024-03-01"),
     ("the 3rd of May?", None, None), ("on 3 May 2023", "2023-05-03", "2023-05-04"),
     ("what changed in March", "2023-03-01", "2023-04-01"), ("in 2022", "2022-01-01", "2023-01-01"),
     ("我们2023年5月决定了什么", "2023-05-01", "2023-06-01"), ("12月4日做了什么", "2023-12-04", "2023-12-05"),
     ("what happened yesterday", "2024-01-09", "2024-01-10"), ("May I ask something?", None, None),
     ("on February 30, 2023", None, None), ("what is 2023 revenue", None, None),
     ("What did Dave do on the first weekend of October 2023?", "2023-10-06", "2023-10-09"),
     ("Which country was Tim visiting in the second week of November?", "2023-11-08", "2023-11-15"),
     ("Where was Calvin in the last weekend of October 2023?", "2023-10-27", "2023-10-30"),
     ("Which tournament did Nate win in the beginning of November 2022?", "2022-11-01", "2022-11-11"),
     ("Was the first half of September 2022 a good month?", "2022-09-01", "2022-09-16"),
     ("What state did Joanna visit in summer 2021?", "2021-06-01", "2021-09-01"),
     ("How many pets did Andrew have, as of September 2023?", "1970-01-01", "2023-10-01"),
     ("阿杰10月的第一个周末在做什么", "2023-10-06", "2023-10-09"), ("11月第二周", "2023-11-08", "2023-11-15"),
     ("2022年11月初", "2022-11-01", "2022-11-11"), ("8月中旬", "2023-08-11", "2023-08-21"),
     ("2023年10月最后两周", "2023-10-18", "2023-11-01"), ("2021年夏天去了哪里", "2021-06-01", "2021-09-01"),
     ("截至2023年9月阿杰养了几只狗", "1970-01-01", "2023-10-01"),
     ("What did she do at the end of the concert in May 2023?", "2023-05-01", "2023-06-01"),
     ("early in the morning", None, None)],
)
def test_named_dates_become_windows(query: str, start: str | None, end: str | None) -> None:
    now = datetime(2024, 1, 10, 15, tzinfo=UTC).timestamp()
    window = time_query(query, now).window
    shown = None if window is None else tuple(datetime.fromtimestamp(t, UTC).date().isoformat() for t in window)
    assert shown == (None if start is None else (start, end))


def test_reading_only_reachable_candidates_never_changes_the_top() -> None:
    """Whatever the scores, factors and dead candidates: the episodes `_read_live` reads
    hold the same top `count` as reading every candidate would, and none is read twice."""
    rng = random.Random(7)
    for _ in range(500):
        _check_reading_reachable(rng, ties=rng.random() < 0.5)


def _check_reading_reachable(rng: random.Random, *, ties: bool) -> None:
    """One random case; with `ties`, few distinct scores and factors make equal finals."""
    from engine.models import Episode
    from engine.recall.pipeline import _read_live

    fused = {
        f"e{i}": rng.choice([0.2, 0.5, 1.0]) if ties else rng.random() ** 3
        for i in range(rng.randint(1, 60))
    }
    ceiling = rng.uniform(1.0, 4.0)
    factors = {i: rng.choice([0.5, 1.0, ceiling]) if ties else rng.uniform(0.2, ceiling) for i in fused}
    final = {i: fused[i] * factors[i] for i in fused}
    live = {i: Episode(id=i, namespace="ns", content=i, occurred_at=0, created_at=0)
            for i in fused if rng.random() > 0.2}  # fmt: skip
    count = rng.randint(1, 10)
    reads: list[str] = []

    def read(ids: list[str]) -> list[Episode]:
        reads.extend(ids)
        return [live[i] for i in ids if i in live]

    kept = _read_live(read, fused, top_k=count, ceiling=ceiling, final=lambda e: final[e.id])
    assert len(reads) == len(set(reads))
    assert _best(kept, final, count) == _best(live, final, count)


def test_no_factor_product_exceeds_the_ceiling_recall_prunes_by() -> None:
    """`_read_live` leaves a candidate unread when its fused score times `factor_ceiling`
    misses the floor: exact only while no episode's factors multiply to more, whatever the
    request (role, capabilities, a "when" question, a named date) and the episode."""
    from engine.models import Episode
    from engine.recall.rerank import Candidate, FactorReranker, RerankContext, factor_ceiling
    from engine.recall.time_query import TimeQuery
    from engine.settings import Settings

    rng = random.Random(11)
    settings = Settings()
    reranker = FactorReranker(settings)
    now = 1_700_000_000.0
    for _ in range(300):
        window = (now - 5 * 86_400, now - 4 * 86_400) if rng.random() < 0.5 else None
        context = RerankContext(
            now=now, role=rng.choice([None, "coder", "Caroline"]),
            capabilities=rng.choice([None, [], ["web_search"]]),
            query_names=rng.choice([[], ["caroline"], ["caroline", "coder"]]),
            time=TimeQuery(asks_when=rng.random() < 0.5, wants_latest=False, window=window),
        )  # fmt: skip
        episodes = [
            Episode(
                id=f"e{i}", namespace="ns", content=rng.choice(["we met", "we met last Friday"]),
                kind=rng.choice(["message", "tool_call"]), role=rng.choice([None, "coder", "Caroline"]),
                importance=rng.random(), occurred_at=now - rng.uniform(0, 30) * 86_400, created_at=now,
                metadata=rng.choice([{}, {"for_role": "coder"}, {"tool": "web_search"}, {"tool": "calc"}]),
            )
            for i in range(10)
        ]  # fmt: skip
        ceiling = factor_ceiling(context, settings)
        ranked = reranker.rerank([Candidate(e, 1.0, []) for e in episodes], context)
        assert all(factors.product() <= ceiling * (1 + 1e-12) for _, _, factors in ranked)
        assert max(final for final, _, _ in ranked) <= ceiling * (1 + 1e-12)


def _best(ids: Iterable[str], final: dict[str, float], count: int) -> list[str]:
    return sorted(ids, key=lambda i: (-final[i], i))[:count]

"""Ingest steps as tables of inputs and expected outputs, English and Chinese: importance,
chunking, dedup, entity-name conflicts, decision subjects, working memory."""

from __future__ import annotations

import pytest

from engine.ingest.chunk import chunk_text
from engine.ingest.dedup import same_facts
from engine.ingest.extract import decision_topics, find_decisions, find_numbers, find_todos
from engine.ingest.importance import score_importance, signals_of
from engine.ingest.resolve import names_conflict
from engine.inputs import StoreRequest
from engine.settings import Settings
from engine.settings.weights import ImportanceWeights
from engine.text import count_tokens
from engine.working import WorkingItem, WorkingMemory

THRESHOLD = Settings().importance_threshold


def importance(text: str, new_entities: int = 0) -> float:
    """The rule-based importance, as the writer computes it."""
    signals = signals_of(
        text,
        new_entities=new_entities,
        numbers=len(find_numbers(text)),
        decisions=len(find_decisions(text)),
        todos=len(find_todos(text)),
    )
    return score_importance(signals, ImportanceWeights())


# (text, entities new to the namespace, expected: skip < threshold <= keep < 0.6 <= high)
IMPORTANCE = [
    ("ok", 0, "skip"),
    ("thanks!", 0, "skip"),
    ("ok thanks", 0, "skip"),
    ("Got it, thank you so much!", 0, "skip"),
    ("sounds good", 0, "skip"),
    ("hmm", 0, "skip"),
    ("let me see", 0, "skip"),
    ("好的", 0, "skip"),
    ("明白了。", 0, "skip"),
    ("收到，谢谢", 0, "skip"),
    ("嗯嗯", 0, "skip"),
    ("没问题👍", 0, "skip"),
    ("The sky looks grey over the office today.", 0, "keep"),
    ("I had coffee with the team this morning.", 0, "keep"),
    ("Can you explain how the cache works?", 0, "keep"),
    ("我今天有点累。", 0, "keep"),
    ("Dana joined the Kestrel team.", 2, "keep"),
    ("The build takes 14 minutes on CI.", 0, "keep"),
    ("We decided to move the launch to May 3.", 0, "high"),
    ("We decided to use Postgres for Atlas.", 2, "high"),
    ("预算改成50万", 0, "high"),
    ("我们决定下周一上线新版本。", 0, "high"),
    ("Actually, the meeting is on Thursday, not Friday.", 0, "high"),
    ("TODO: rotate the API keys before Friday.", 0, "high"),
    ("Remember to send Bob the contract tomorrow.", 1, "high"),
    ("记得明天把合同发给王总。", 1, "high"),
    ("不是周三，而是周四开会。", 0, "high"),
    ("The deadline for Orion is 2026-12-15 and the budget is $40k.", 1, "high"),
    ("I never want emails after 8pm.", 0, "keep"),
    ("Alice prefers tea, not coffee.", 1, "keep"),
    ("Our office moved to 88 Century Avenue, Shanghai.", 1, "high"),
    ("ok, ship it", 0, "keep"),
]


@pytest.mark.parametrize(("text", "new_entities", "band"), IMPORTANCE)
def test_importance_bands(text: str, new_entities: int, band: str) -> None:
    score = importance(text, new_entities)
    got = "skip" if score < THRESHOLD else "keep" if score < 0.6 else "high"
    assert got == band, score


def test_new_entities_raise_importance_up_to_three() -> None:
    base = importance("They met at the station.")
    assert importance("They met at the station.", 1) > base
    assert importance("They met at the station.", 3) == importance("They met at the station.", 7)


@pytest.mark.parametrize(
    ("text", "max_tokens", "min_tokens"),
    [
        (" ".join(f"Sentence number {i} talks about topic {i}." for i in range(60)), 200, 50),
        ("。".join(f"第{i}句话讲的是项目进度" for i in range(80)) + "。", 200, 50),
        ("word " * 450, 200, 50),  # no sentence ends: cut between words
        ("Short one. " * 3 + "x " * 230, 200, 50),
    ],
)
def test_chunks_respect_bounds_and_keep_every_word(text: str, max_tokens: int, min_tokens: int) -> None:
    chunks = chunk_text(text, max_tokens=max_tokens, min_tokens=min_tokens)
    assert len(chunks) > 1
    sizes = [count_tokens(c) for c in chunks]
    assert max(sizes) <= max_tokens
    assert min(sizes) >= min_tokens
    assert sum(sizes) == count_tokens(text)


def test_short_text_is_one_chunk() -> None:
    assert chunk_text("Just one line.", max_tokens=200, min_tokens=50) == ["Just one line."]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("We chose Postgres.", "we chose postgres!", True),
        ("Please remind me to send the report", "Remind me to send the report", True),
        ("预算改成50万", "预算改成50万。", True),
        ("The launch slipped by 5 days", "The launch slipped by 9 days", False),
        ("We will use Redis", "We will not use Redis", False),
        ("Alice told Bob", "Bob told Alice", False),
        ("预算改成50万", "预算改成60万", False),
        ("The meeting moved to Friday", "The meeting moved to Thursday", False),
        ("worker 0 note 1", "worker 1 note 0", False),
    ],
)
def test_same_facts(a: str, b: str, same: bool) -> None:
    assert same_facts(a, b) is same


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        ("room 101", "room 102", True),
        ("project alpha", "project beta", True),
        ("iphone 14", "iphone 15", True),
        ("postgres", "postgresql", False),
        ("new york", "new york city", False),
        ("alice", "alice chen", False),
        ("北京大学", "北京大学医学部", False),
    ],
)
def test_entity_name_conflicts(a: str, b: str, conflict: bool) -> None:
    assert names_conflict(a, b) is conflict


@pytest.mark.parametrize(
    ("text", "topics"),
    [
        ("预算改成60万", ["topic:预算"]),
        ("We set the budget to $40k.", ["topic:budget"]),
        ("The launch date moved to May.", ["topic:launch date"]),
        ("价格定为199元，上线时间改到下周", ["topic:上线时间", "topic:价格"]),
        ("We decided to use Postgres.", []),
    ],
)
def test_decision_topics(text: str, topics: list[str]) -> None:
    assert decision_topics(text) == topics


def _item(n: int, importance: float, key: bool = False, session: str = "s") -> WorkingItem:
    request = StoreRequest(content=f"item {n}", session_id=session,
                           metadata={"key": True} if key else {})  # fmt: skip
    return WorkingItem(id=f"i{n}", request=request, importance=importance, embedding=[1.0],
                       created_at=float(n), sequence=0)  # fmt: skip


def test_working_memory_window_promotes_the_weighty_and_drops_the_rest() -> None:
    working = WorkingMemory(capacity=3, key_weight=2.0, promote_min=0.5)
    assert working.add(_item(1, 0.1)) == []
    assert working.add(_item(2, 0.3, key=True)) == []  # weight 0.6
    assert working.add(_item(3, 0.9)) == []
    assert working.add(_item(4, 0.2)) == []  # evicts item 1 (0.1): dropped
    assert [i.id for i in working.items("default", "s")] == ["i2", "i3", "i4"]
    assert working.add(_item(5, 0.7)) == []  # evicts item 4 (0.2): dropped
    promoted = working.add(_item(6, 0.95))  # evicts item 2 (0.6 with its key flag): promoted
    assert [i.id for i in promoted] == ["i2"]
    assert [i.id for i in working.items("default", "s")] == ["i3", "i5", "i6"]
    assert working.items("default", "other") == []
    assert working.remove("default", "i5") and not working.remove("default", "i5")
    assert [i.id for i in working.drain("default", "s")] == ["i3", "i6"]
    assert working.items("default") == []

"""The update rules of `engine/rules/updates.toml` as their own tests (each example is read by
its rule with its slot, no counterexample is read as a change), and recall's updates as a
property on a real memory: the first cards do not depend on how many were asked for, and a
card supersedes only cards that speak of the slot its change names."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Settings
from engine.recall.update_rules import read_change, update_rules
from engine.text import tokenize

RULES = update_rules().rules
EXAMPLES = [(rule.name, text, slot) for rule in RULES for text, slot in rule.examples]
COUNTEREXAMPLES = [text for rule in RULES for text in rule.counterexamples]


def test_every_rule_is_named_once_and_has_an_example() -> None:
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))
    assert all(rule.examples for rule in RULES), [rule.name for rule in RULES if not rule.examples]
    assert {rule.language for rule in RULES} == {"en", "zh"}


@pytest.mark.parametrize(("name", "text", "slot"), EXAMPLES, ids=[f"{n}:{t[:30]}" for n, t, _ in EXAMPLES])
def test_a_rule_reads_its_examples_with_their_slot(name: str, text: str, slot: tuple[str, ...]) -> None:
    change = read_change(text)
    assert change is not None and (change.rule, change.slot) == (name, tuple(slot))


@pytest.mark.parametrize("text", COUNTEREXAMPLES)
def test_no_rule_reads_a_counterexample_as_a_change(text: str) -> None:
    assert read_change(text) is None


# Turns written for this test, unlike any benchmark's: a household, a lab and a shop, in both
# languages; some state a change of one thing, most state none.
_TURNS = [
    "The plumber comes on Tuesday to fix the kitchen sink.",
    "Actually the plumber visit moved to Thursday afternoon.",
    "Our book club reads Middlemarch this month.",
    "The book club switched from Middlemarch to Persuasion.",
    "The lab meeting is in room 204 every Monday.",
    "The lab meeting is now in room 310.",
    "I drink two espressos every morning before work.",
    "I gave up espresso after the doctor visit.",
    "Mei runs the bakery's night shift.",
    "Tomás took over the night shift from Mei.",
    "The kitchen sink has leaked since March.",
    "We ordered new shelves for the shop.",
    "The shelves arrived and the shop looks great.",
    "My brother's wedding was postponed to October.",
    "Our anniversary dinner is booked at the harbour restaurant.",
    "水电工周二来修厨房的水槽。",
    "水电工改到周四下午来了。",
    "读书会这个月读《米德尔马契》。",
    "实验室组会每周一在204房间。",
    "实验室组会改到310房间了。",
    "我每天早上喝两杯浓缩咖啡。",
    "我们不再用那台旧烤箱了。",
    "旧烤箱还在店里的后厨。",
]
_QUESTIONS = [
    "When is the plumber coming?", "What does the book club read?", "Where is the lab meeting?",
    "Do I still drink espresso?", "Who runs the night shift?", "What happened with the shelves?",
    "水电工什么时候来？", "实验室组会在哪里？", "还用旧烤箱吗？", "When is my brother's wedding?",
]  # fmt: skip
_START = datetime(2026, 3, 2, 9, tzinfo=UTC)
_NAMESPACES = count()


@pytest.fixture(scope="module")
def shared_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    data = Path(tmp_path_factory.mktemp("updates")) / "data"
    with Memory.open(settings=Settings(data_dir=data, importance_threshold=0.0, track_access=False)) as memory:
        yield memory


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    turns=st.lists(st.sampled_from(_TURNS), min_size=8, max_size=len(_TURNS), unique=True),
    gaps=st.lists(st.integers(1, 20), min_size=len(_TURNS), max_size=len(_TURNS)),
    question=st.sampled_from(_QUESTIONS),
)
def test_the_first_cards_do_not_depend_on_how_many_were_asked_for(
    shared_memory: Memory, turns: list[str], gaps: list[int], question: str
) -> None:
    namespace = f"updates-{next(_NAMESPACES)}"
    at = _START
    items = []
    for text, gap in zip(turns, gaps, strict=False):
        at += timedelta(days=gap)
        items.append({"content": text, "namespace": namespace, "occurred_at": at.isoformat()})
    shared_memory.store_many(items)
    asked = at + timedelta(days=1)
    largest = shared_memory.recall(question, namespace=namespace, top_k=50, now=asked)
    for k in (1, 3, 5):
        first = shared_memory.recall(question, namespace=namespace, top_k=k, now=asked)
        assert [c.id for c in first] == [c.id for c in largest[:k]], (k, question)
    by_id = {card.id: card for card in largest}
    for card in largest:
        if card.trace is None or not card.trace.supersedes:
            continue
        change = read_change(card.content)
        assert change is not None and change.slot, card.content
        slot = set(tokenize(" ".join(change.slot)))
        for older in card.trace.supersedes:
            assert slot & set(tokenize(by_id[older].content)), (card.content, by_id[older].content)

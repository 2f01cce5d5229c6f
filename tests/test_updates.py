"""Knowledge updates in recall: the current value ranks above the one it replaced and both
traces say so; cards that state no change, or change something else, are left alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Memory
from engine.models import MemoryCard, Trace
from engine.recall.updates import mark_replaced_by_facts, mark_updates

START = datetime(2026, 10, 1, tzinfo=UTC)


def _card(id: str, content: str, score: float, day: int, entities: list[str]) -> MemoryCard:
    return MemoryCard(
        id=id, namespace="n", content=content, score=score,
        occurred_at=START + timedelta(days=day), created_at=START + timedelta(days=day),
        session_id=None, role=None, kind="message", layer="episodic", importance=0.5,
        entities=entities, metadata={}, trace=Trace(channels=[], fused=score, decay=1.0, age_days=0.0,
                                       importance=0.5, final=score),
    )  # fmt: skip


def test_the_demo_answers_with_the_moved_launch_first(memory: Memory) -> None:
    memory.store("The public launch of Atlas is set for November 20 in Rotterdam; Marco Rossi "
                 "runs the launch event.", occurred_at="2026-10-02T14:00:00Z", importance=0.8)
    memory.store("Rotterdam venue is booked for 300 people.", occurred_at="2026-10-02T14:06:00Z",
                 importance=0.8)
    memory.store("Actually, the launch moved to November 27 because the Rotterdam venue had a "
                 "conflict.", occurred_at="2026-11-03T16:00:00Z", importance=0.8)  # fmt: skip
    cards = memory.recall("When is the launch and who runs it?", top_k=3)
    assert "November 27" in cards[0].content and "November 20" in cards[1].content
    assert cards[0].trace is not None and cards[1].trace is not None
    assert cards[0].trace.supersedes == [cards[1].id]
    assert cards[1].trace.superseded_by == cards[0].id


def test_one_card_asked_for_is_the_update_not_the_value_it_replaced(memory: Memory) -> None:
    """With top_k 1 the update alone could not reach the top: it is read and weighed anyway
    (`update_candidates`), and takes the place of the card it replaces."""
    memory.store("The team offsite is on February 12.", occurred_at="2025-01-10T12:00:00Z", importance=0.8)
    memory.store("The offsite got pushed back to February 19.", occurred_at="2025-02-02T12:00:00Z", importance=0.8)
    asked = datetime(2025, 2, 3, tzinfo=UTC)
    [card] = memory.recall("When is the team offsite?", top_k=1, now=asked)
    assert "February 19" in card.content
    assert card.trace is not None and card.trace.supersedes
    memory.close()
    with Memory.open(settings=memory.settings.model_copy(update={"update_candidates": 0})) as kept:
        [card] = kept.recall("When is the team offsite?", top_k=1, now=asked)
    assert "February 12" in card.content  # the case the setting is for


def test_a_short_update_names_its_topic_once() -> None:
    """"Bad news, the concert was cancelled" shares one word with what it cancels."""
    old = _card("a", "The concert is on July 12.", 0.9, 1, [])
    new = _card("b", "Bad news, the concert was cancelled.", 0.5, 30, [])
    marked = {c.id: c for c in mark_updates([old, new])}
    assert marked["b"].score == 0.9 and marked["a"].trace is not None and marked["a"].trace.superseded_by == "b"


def test_a_new_holder_is_an_update(memory: Memory) -> None:
    memory.store("Dana leads the design team.", occurred_at="2025-01-10T12:00:00Z", importance=0.8)
    memory.store("Priya took over the design team from Dana in May.", occurred_at="2025-06-02T12:00:00Z",
                 importance=0.8)  # fmt: skip
    [card] = memory.recall("Who leads the design team?", top_k=1, now="2025-06-03T00:00:00Z")
    assert "Priya" in card.content and card.trace is not None and card.trace.supersedes


def test_a_change_of_another_persons_thing_is_not_an_update() -> None:
    mine = _card("a", "I fly to Paris on May 3", 0.9, 1, [])
    for theirs in ("My sister's flight to Paris got changed to May 5", "我妹妹去巴黎的航班改到了5月5日"):
        sister = _card("b", theirs, 0.5, 30, [])
        assert mark_updates([mine, sister]) == [mine, sister]


def test_a_newer_card_that_states_no_change_is_not_an_update() -> None:
    old = _card("a", "The launch is set for November 20 in Rotterdam", 0.9, 1, ["Rotterdam"])
    new = _card("b", "The Rotterdam venue has 300 seats", 0.5, 30, ["Rotterdam"])
    assert mark_updates([old, new]) == [old, new]


def test_a_change_of_something_else_is_not_an_update() -> None:
    old = _card("a", "The launch is set for November 20 in Rotterdam", 0.9, 1, ["Rotterdam"])
    new = _card("b", "Dana moved to Lisbon last week", 0.5, 30, ["Dana", "Lisbon"])
    assert mark_updates([old, new]) == [old, new]


def test_chinese_updates_are_read() -> None:
    old = _card("a", "发布会定在11月20日，在鹿特丹", 0.9, 1, ["鹿特丹"])
    new = _card("b", "发布会推迟到11月27日了，鹿特丹场地有冲突", 0.4, 30, ["鹿特丹"])
    marked = {c.id: c for c in mark_updates([old, new])}
    assert marked["b"].score == 0.9 and marked["a"].trace.superseded_by == "b"  # type: ignore[union-attr]


_TEXTS = st.sampled_from([
    "The launch moved to November 27 in Rotterdam", "The launch is set for November 20",
    "Budget raised to $15,000 for Rotterdam", "The Rotterdam venue is booked", "我们不再用Redis了",
    "Dana works at Acme", "The demo was postponed until Friday",
])  # fmt: skip


@settings(deadline=None)  # the first call loads jieba
@given(st.lists(st.tuples(_TEXTS, st.floats(0.01, 1.0), st.integers(0, 60),
                          st.sampled_from([[], ["Rotterdam"], ["Acme"]])), max_size=8))  # fmt: skip
def test_updates_only_raise_scores_and_keep_every_card(
    rows: list[tuple[str, float, int, list[str]]],
) -> None:
    cards = [_card(str(n), text, score, day, entities) for n, (text, score, day, entities) in enumerate(rows)]
    marked = mark_updates(cards)
    assert [c.id for c in marked] == [c.id for c in cards]
    best = max((c.score for c in cards), default=0.0)
    for before, after in zip(cards, marked, strict=True):
        assert before.score <= after.score <= best
        assert after.content == before.content
        trace = after.trace
        assert trace is not None
        if trace.superseded_by is not None:  # replaced by a newer card
            newer = next(c for c in marked if c.id == trace.superseded_by)
            assert newer.occurred_at > after.occurred_at and after.id in newer.trace.supersedes  # type: ignore[union-attr]
        if after.score > before.score:
            assert trace.supersedes


def test_a_fact_that_replaced_another_ranks_above_the_turn_that_stated_the_old_value() -> None:
    stale = _card("google", "I work at Google.", 0.6, 0, ["Sam"])
    other = _card("lunch", "Lunch at noon.", 0.5, 1, [])
    fact = _card("microsoft", "Sam works at Microsoft: I started a new job at Microsoft.", 0.36, 60, ["Sam"])
    fact = fact.model_copy(update={"layer": "semantic"})
    marked = {c.id: c for c in mark_replaced_by_facts([stale, other, fact], {"microsoft": ["google", "gone"]})}
    assert marked["microsoft"].score == 0.6 and marked["microsoft"].trace is not None
    assert marked["microsoft"].trace.supersedes == ["google"] and marked["microsoft"].trace.final == 0.6
    assert marked["google"].score == 0.6 and marked["google"].trace is not None
    assert marked["google"].trace.superseded_by == "microsoft"
    assert marked["lunch"] == other  # untouched
    # A fact that closed nothing, or whose old turns are not among the cards, stays as it was.
    assert mark_replaced_by_facts([stale, fact], {}) == [stale, fact]
    assert mark_replaced_by_facts([stale, fact], {"microsoft": ["gone"]}) == [stale, fact]

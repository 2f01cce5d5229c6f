"""A forgotten episode is not recalled through the facts drawn from it either, on every store:
a fact only forgotten episodes support is not shown, one that others support stands on them
without the forgotten words, and `restore` brings each back as it was."""

from __future__ import annotations

import random

import pytest

from engine import Memory
from engine.errors import StoreUnavailable
from tests.told import SAM, facts_of, told

# Made-up places: each episode names one of its own, so whatever shows one while its episode
# is forgotten comes from that episode.
MARKERS = ["Velmora", "Tarquist", "Olvenhaven", "Brisklow", "Quenmoor", "Dravenport", "Istelby",
           "Korvanth", "Ulmbright", "Senmark"]  # fmt: skip
SAID = ["I live in {m}.", "I work at Google in {m}.", "I love the pottery classes in {m}.", "I moved to {m}.",
        "I play the clarinet in {m}.", "I love hiking around {m}."]  # fmt: skip


def _state(memory: Memory) -> set[tuple[str, str, int, str, tuple[str, ...], float | None]]:
    return {(f.predicate, f.object, f.support, f.statement, tuple(f.source_episode_ids), f.valid_to)
            for f in facts_of(memory)}  # fmt: skip


def test_a_forgotten_turn_leaves_the_facts_and_restore_brings_it_back(on_each_store: Memory) -> None:
    memory = on_each_store
    said = told(memory, SAM)
    memory.reflect()
    before = _state(memory)
    google = next(f for f in facts_of(memory) if f.object == "Google")
    assert google.support == 2 and "Zanzibar" in google.statement

    memory.forget(said["again"])
    memory.forget(said["hobby"])
    facts = {f.object: f for f in facts_of(memory)}
    assert "pottery" not in facts  # only a forgotten turn said it
    assert facts["Google"].source_episode_ids == [said["first"]] and facts["Google"].support == 1
    assert facts["Google"].statement == ""  # the sentence was the forgotten turn's
    for layer in ("semantic", None):
        cards = memory.recall("Where does Sam work, and what does Sam love?", layer=layer, top_k=10)
        assert not any("Zanzibar" in c.content or "pottery" in c.content for c in cards)
        assert all(said["again"] not in c.related_ids and said["hobby"] not in c.related_ids for c in cards)
    assert "pottery" not in memory.entity("Sam").summary and memory.doctor().ok

    memory.restore(said["again"])
    memory.restore(said["hobby"])
    assert _state(memory) == before and memory.doctor().ok
    [card] = [c for c in memory.recall("What does Sam love?", layer="semantic") if "pottery" in c.content]
    assert card.related_ids == [said["hobby"]]


def test_whatever_is_forgotten_or_restored_no_fact_shows_a_forgotten_turn(on_each_store: Memory) -> None:
    memory = on_each_store
    rng = random.Random(11)
    marker_of: dict[str, str] = {}
    for day, marker in enumerate(MARKERS):
        text = rng.choice(SAID).format(m=marker)
        marker_of[memory.store(text, role="Sam", session_id=f"s{day % 3}", importance="high",
                               occurred_at=1_700_000_000 + day * 86_400).id] = marker  # fmt: skip
    memory.reflect()
    before = _state(memory)
    assert len(before) >= 5
    forgotten: set[str] = set()
    for _ in range(8):
        if forgotten and rng.random() < 0.4:
            back = rng.choice(sorted(forgotten))
            memory.restore(back)
            forgotten.discard(back)
        else:
            gone = rng.sample(sorted(set(marker_of) - forgotten), 2)
            for episode_id in gone:
                memory.forget(episode_id)
            forgotten |= set(gone)
        hidden = {marker_of[i] for i in forgotten}
        facts = facts_of(memory)
        shown = [memory.entity("Sam").summary]
        shown += [f"{f.object} {f.statement}" for f in facts]
        # Every session's digest, the other sessions' too: theirs list the facts they cite.
        shown += [s.digest.model_dump_json() for s in memory.sessions(limit=100) if s.digest is not None]
        for layer in ("semantic", None):
            cards = memory.recall("Where does Sam live and work, what does Sam love and play?", layer=layer, top_k=20)
            shown += [c.content for c in cards]
            assert all(not set(c.related_ids) & forgotten for c in cards)
        for marker in hidden:
            assert not any(marker in text for text in shown), marker
        assert all(f.source_episode_ids and not set(f.source_episode_ids) & forgotten for f in facts)
        assert memory.doctor().ok
    for episode_id in sorted(forgotten):
        memory.restore(episode_id)
    assert _state(memory) == before


def test_a_forget_that_fails_midway_leaves_the_turn_and_its_facts_as_they_were(
    on_each_store: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = on_each_store
    hobby = memory.store("I love pottery.", role="Sam", importance="high").id
    memory.reflect()
    before = _state(memory)

    def broken(namespace: str, facts: object) -> None:
        raise StoreUnavailable("the graph went away")

    monkeypatch.setattr(memory._core.graph, "mark_forgotten_sources", broken)
    with pytest.raises(StoreUnavailable):
        memory.forget(hobby)
    assert memory.get(hobby).deleted_at is None and _state(memory) == before
    monkeypatch.undo()
    memory.forget(hobby)
    assert memory.get(hobby).deleted_at is not None and not facts_of(memory)

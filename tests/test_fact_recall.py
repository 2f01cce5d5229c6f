"""Facts found by what is asked, on real stores: each active fact is a point of the facts'
vector store, found by a question's meaning and words (not only by an entity it names),
cited and dated; the points follow the graph through reflection, doctor, import and merges,
and never leave their namespace."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.models import MemoryCard
from engine.stores.vectors import SparseVector, VectorPoint

DAY = datetime(2023, 5, 7, 12, tzinfo=UTC).timestamp()
MELANIE = [
    "I play the clarinet in a community band on Sundays.",
    "I volunteer at the animal shelter every weekend.",
    "I went to a pottery class with my kids yesterday.",
    "My favorite book is Charlotte's Web.",
]


def _remember(memory: Memory, namespace: str = "default", speaker: str = "Melanie") -> None:
    for n, text in enumerate(MELANIE):
        memory.store(text, namespace=namespace, role=speaker, session_id="s1",
                     occurred_at=DAY + 60 * n, importance=0.8)  # fmt: skip
    while memory.reflect(namespace=namespace).status != "nothing_new":
        pass


def test_a_question_finds_the_fact_that_answers_it(on_each_store: Memory) -> None:
    memory = on_each_store
    _remember(memory)
    asked = {
        "What instrument does she play?": "clarinet",  # names no entity: found by meaning
        "Where does Melanie volunteer?": "animal shelter",
        "What is Melanie's favorite book?": "Charlotte's Web",
    }
    for question, answer in asked.items():
        [first, *_] = memory.recall(question, layer="semantic", now=DAY + 86_400)
        assert answer.lower() in first.content.lower(), (question, first.content)
        assert first.layer == "semantic" and first.trace is not None
        assert {hit.channel for hit in first.trace.channels} & {"vector", "keyword"}
        assert first.trace.path is not None and first.trace.path.relationships == ["FACT"]
        # It cites the turn it was drawn from, and is dated by it.
        [source] = first.related_ids
        assert answer.lower() in memory.get(source).content.lower()
        assert first.occurred_at.timestamp() == memory.get(source).occurred_at


def test_each_question_about_a_person_gets_its_own_facts(memory: Memory) -> None:
    _remember(memory)
    tops = {memory.recall(q, layer="semantic", top_k=1)[0].id
            for q in ("What instrument does Melanie play?", "Where does Melanie volunteer?",
                      "What class did Melanie take with her kids?")}  # fmt: skip
    assert len(tops) == 3


def test_doctor_finds_missing_and_orphan_fact_points_and_rebuilds_them(on_each_store: Memory) -> None:
    memory = on_each_store
    _remember(memory)
    assert memory.doctor().ok
    points = memory._core.facts.all_payloads()
    assert points and {p.kind for p in points.values()} == {"fact"}
    missing = sorted(points)[:2]
    memory._core.facts.delete(missing)
    report = memory.doctor()
    assert not report.ok and report.missing_fact_points == missing and report.facts == len(points)
    assert memory.doctor(repair=True).repaired
    assert memory.doctor().ok
    # A point of no active fact is an orphan, marked deleted by the repair.
    orphan = memory._core.facts.payloads([missing[0]])[missing[0]]
    memory._core.facts.upsert([VectorPoint(id="00000000-0000-4000-8000-000000000001", dense=[0.1] * memory._core.embedder.dimension,
                                           sparse=SparseVector(indices=[], values=[]), payload=orphan)])  # fmt: skip
    assert memory.doctor().orphan_fact_points == ["00000000-0000-4000-8000-000000000001"]
    assert memory.doctor(repair=True).repaired and memory.doctor().ok
    assert memory.recall("What instrument does she play?", layer="semantic")[0].content.count("clarinet")


def test_an_import_rebuilds_the_fact_points(memory: Memory, tmp_path: Path) -> None:
    _remember(memory)
    memory.export(tmp_path / "backup.jsonl")
    with Memory.open(settings=Settings(data_dir=tmp_path / "copy")) as copy:
        copy.import_(tmp_path / "backup.jsonl")
        assert copy.doctor().ok
        [first, *_] = copy.recall("What instrument does she play?", layer="semantic")
        assert "clarinet" in first.content


def test_a_merge_renames_the_facts_points(memory: Memory) -> None:
    _remember(memory, speaker="Mel")
    memory.store("Melanie is my sister.", importance=0.8)
    memory.merge_entities("Melanie", "Mel")
    [first, *_] = memory.recall("What instrument does Melanie play?", layer="semantic")
    assert first.content.startswith("Melanie plays clarinet")
    assert memory.doctor().ok


def test_fact_points_stay_in_their_namespace(memory: Memory) -> None:
    _remember(memory, namespace="tenant-a")
    _remember(memory, namespace="tenant-b", speaker="Dana")
    for namespace, speaker in (("tenant-a", "Melanie"), ("tenant-b", "Dana")):
        cards = memory.recall("Who plays the clarinet?", namespace=namespace, layer="semantic", top_k=20)
        assert cards and {c.namespace for c in cards} == {namespace}
        assert all(c.metadata["subject"] == speaker for c in cards if c.metadata["subject"] in ("Melanie", "Dana"))
        assert {memory.get(i, namespace=namespace).namespace for c in cards for i in c.related_ids} == {namespace}
    assert memory.recall("Who plays the clarinet?", namespace="tenant-c", layer="semantic") == []


POTTERY = [
    "I adopted a dog named Rex from the shelter.",
    "Melanie: At pottery class I made a blue bowl for my mom.",
    "Melanie: The pottery teacher showed us how to glaze a vase.",
    "Melanie: My pottery class meets every Tuesday evening.",
    "Melanie: I fired my first pottery mug in the kiln today.",
    "Melanie: Pottery is messy but I love shaping the clay.",
]


def _facts_above_the_best_episode(tmp_path: Path, power: float) -> list[MemoryCard]:
    # Fact cards weighted high, so that only the relevance factor keeps weak ones down.
    settings = Settings(data_dir=tmp_path / str(power), fact_card_weight=2.0, fact_relevance_power=power)
    with Memory.open(settings=settings) as memory:
        for n, text in enumerate(POTTERY):
            memory.store(text, role="Melanie", session_id="s1", occurred_at=DAY + 60 * n, importance=0.8)
        while memory.reflect().status != "nothing_new":
            pass
        cards = memory.recall("What did Melanie make in pottery class?", top_k=10, now=DAY + 86_400)
        alone = memory.recall("What did Melanie make in pottery class?", layer="semantic", now=DAY + 86_400)
    assert alone and all(card.trace is not None and card.trace.relevance_factor == 1 for card in alone)
    for card in cards:
        assert card.trace is not None and 0 <= card.trace.relevance_factor <= 1
        if card.layer == "semantic":  # the factor is part of the score the trace explains
            floor = settings.fact_confidence_floor
            expected = (card.trace.fused * settings.fact_card_weight * (floor + (1 - floor) * card.importance)
                        * card.trace.answer_factor * card.trace.relevance_factor)  # fmt: skip
            assert card.score == pytest.approx(expected, rel=1e-4)
    best_episode = next(i for i, card in enumerate(cards) if card.layer == "episodic")
    return cards[:best_episode]


def test_a_fact_matching_worse_than_the_best_turn_is_weighed_down_beside_it(tmp_path: Path) -> None:
    """Facts are ranked among facts: without the factor the best of them stands above the
    turns however much better those match the question."""
    unweighed = _facts_above_the_best_episode(tmp_path, 0.0)
    weighed = _facts_above_the_best_episode(tmp_path, 2.0)
    assert all(card.trace is not None and card.trace.relevance_factor == 1 for card in unweighed)
    assert len(weighed) < len(unweighed)

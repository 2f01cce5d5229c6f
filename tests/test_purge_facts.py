"""A purge takes what reflection drew from the purged episodes with them: on every store, no
fact, fact card, entity or export line still holds what only a purged episode said."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine import Memory
from tests.told import SAM, facts_of, told

# Made-up names: each episode holds one of its own, so whatever still holds one after a purge
# comes from a purged episode.
MARKERS = ["Velmora", "Tarquist", "Olvenhaven", "Brisklow", "Quenmoor", "Dravenport", "Istelby",
           "Korvanth", "Ulmbright", "Senmark", "Prevadia", "Gorsewick"]  # fmt: skip
SAID = ["I work at Google.", "I work at Stripe now.", "I love pottery.", "I love jazz.",
        "I live in Berlin.", "I don't like jazz anymore.", "I play the clarinet.",
        "I moved to Lisbon.", "I love hiking with my dog."]  # fmt: skip


def _export(memory: Memory, path: Path) -> tuple[str, list[dict[str, Any]]]:
    memory.export(path, with_embeddings=False)
    text = path.read_text(encoding="utf-8")
    return text, [json.loads(line) for line in text.splitlines()]


def test_a_purge_takes_its_facts_and_reopens_what_they_closed(on_each_store: Memory, tmp_path: Path) -> None:
    memory = on_each_store
    said = told(memory, [*SAM, ("moved", "2024-06-01", "I now work at Microsoft in Reykjavik.")])
    memory.reflect()
    before = {(f.predicate, f.object): f for f in facts_of(memory)}
    assert before[("works_at", "Google")].support == 2 and before[("works_at", "Google")].valid_to is not None
    assert "Zanzibar" in before[("works_at", "Google")].statement
    plan = memory.purge([said["again"], said["moved"]])
    assert plan.facts_removed == [before[("works_at", "Microsoft")].id]
    assert plan.facts_revised == [before[("works_at", "Google")].id]
    memory.purge([said["again"], said["moved"]], dry_run=False)

    after = {(f.predicate, f.object): f for f in facts_of(memory)}
    google = after[("works_at", "Google")]
    assert google.valid_to is None and google.support == 1 and google.source_episode_ids == [said["first"]]
    assert google.statement == "" and google.valid_from == before[("works_at", "Google")].valid_from
    assert google.confidence < before[("works_at", "Google")].confidence
    assert ("works_at", "Microsoft") not in after and after[("likes", "pottery")] == before[("likes", "pottery")]
    cards = memory.recall("Where does Sam work?", layer="semantic")
    assert cards and cards[0].content == "Sam works at Google"
    text, _ = _export(memory, tmp_path / "export.jsonl")
    for word in ("Zanzibar", "Microsoft", "Reykjavik"):
        assert word not in text


def test_after_any_purge_facts_cite_only_what_is_left(on_each_store: Memory, tmp_path: Path) -> None:
    memory = on_each_store
    rng = random.Random(5)
    stored: dict[str, str] = {}
    for day, marker in enumerate(MARKERS):
        content = f"{rng.choice(SAID)} Greetings from {marker}."
        stored[memory.store(content, role="Sam", session_id=f"s{day % 3}", importance="high",
                            occurred_at=1_700_000_000 + day * 86_400).id] = marker  # fmt: skip
    memory.reflect()
    assert facts_of(memory)
    for round_ in range(2):
        purged = rng.sample(sorted(stored), 3)
        memory.purge(purged, dry_run=False)
        gone = {stored.pop(i) for i in purged}
        text, lines = _export(memory, tmp_path / f"export-{round_}.jsonl")
        contents = {r["record"]["id"]: r["record"]["content"] for r in lines if r["kind"] == "Episode"}
        assert set(contents) == set(stored)
        for line in (r["record"] for r in lines if r["kind"] == "rel:FACT"):
            sources = line["source_episode_ids"]
            assert sources and set(sources) <= set(contents) and line["support"] == len(sources)
            assert not line["statement"] or any(line["statement"] in contents[i] for i in sources)
        referred = {r["record"]["dst"] for r in lines if r["kind"] in ("rel:MENTIONS", "rel:ABOUT")}
        referred |= {r["record"][end] for r in lines if r["kind"] == "rel:FACT" for end in ("src", "dst")}
        assert {r["record"]["id"] for r in lines if r["kind"] == "Entity"} <= referred
        cards = [c.content for c in memory.recall("What does Sam like, where does Sam live and work?",
                                                  top_k=20, layer="semantic")]  # fmt: skip
        for marker in gone:
            assert marker not in text and not any(marker in card for card in cards)

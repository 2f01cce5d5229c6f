"""Ingest through the façade on real stores: importance gating and working memory, chunking,
dedup, numbers, supersession, entity resolution, and the optional LLM hook (against a local
HTTP server speaking the OpenAI chat completions API)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from engine import InvalidInput, Memory, NotFound, Settings
from tests.llm_stub import _Stub

LONG = " ".join(
    f"Section {i} of the Atlas runbook says to check replica lag before step {i}." for i in range(40)
) + " The rollback password lives in the team vault under atlas-rollback."


def test_low_importance_stays_in_working_memory(memory: Memory) -> None:
    skipped = memory.store("ok thanks", session_id="s1")
    assert (skipped.status, skipped.reason) == ("skipped", "low_importance")
    assert memory.stats().episodes == 0
    assert [e.content for e in memory.list(layer="working", session_id="s1")] == ["ok thanks"]
    explicit = memory.store("ok thanks", session_id="s1", importance="low")
    assert explicit.status == "stored"  # explicit importance is never second-guessed
    assert memory.stats().episodes == 1


def test_recall_includes_the_sessions_working_memory(memory: Memory) -> None:
    note = memory.store("Scratch: the flaky test is test_upload_retry.", session_id="s1",
                        layer="working")  # fmt: skip
    assert note.status == "working" and memory.stats().episodes == 0
    cards = memory.recall("which test is flaky?", session_id="s1")
    assert cards[0].id == note.id and cards[0].layer == "working"
    assert cards[0].trace is not None and cards[0].trace.channels[0].channel == "working"
    assert all(c.id != note.id for c in memory.recall("which test is flaky?", session_id="s2"))
    assert all(c.id != note.id for c in memory.recall("which test is flaky?", session_id="s1",
                                                       include_working=False))  # fmt: skip
    forgotten = memory.forget(note.id)
    assert forgotten.deleted_at is not None
    assert memory.list(layer="working") == []


def test_working_overflow_and_end_of_session_promote_what_matters(settings: Settings) -> None:
    small = settings.model_copy(update={"working_capacity": 2})
    with Memory.open(settings=small) as memory:
        def scratch(text: str, importance: float, **extra: Any) -> None:
            memory.store(text, session_id="s", layer="working", importance=importance, **extra)

        scratch("Build 812 is red on the Windows runner.", 0.8)
        scratch("Lunch order is pizza.", 0.1)
        scratch("Vendor quote for Kestrel is 12k.", 0.9)  # overflow: the pizza note is dropped
        assert memory.stats().episodes == 0
        scratch("The tool result the task depends on: 3 shards.", 0.3, metadata={"key": True})
        # overflow again: the lightest is the key-flagged 0.3 x 2 = 0.6 result, promoted
        assert [e.content for e in memory.list()] == ["The tool result the task depends on: 3 shards."]
        promoted = memory.end_session("s")
        assert {r.status for r in promoted} == {"stored"}
        last = memory.audit(limit=1)[0]  # promotions are stores too, and audited as such
        assert (last.action, sorted(last.ids)) == ("store", sorted(r.id for r in promoted))
        assert memory.stats().episodes == 3
        assert memory.list(layer="working") == []
        scratch("Keep this one across the close.", 0.7)
    with Memory.open(settings=small) as reopened:
        assert "Keep this one across the close." in {e.content for e in reopened.list()}


def test_long_content_is_stored_whole_and_in_linked_chunks(memory: Memory) -> None:
    whole = memory.store(LONG, session_id="ops", kind="document")
    assert len(whole.chunk_ids) >= 3
    parent = memory.get(whole.id)
    assert set(whole.chunk_ids) <= set(parent.related_ids)
    for chunk_id in whole.chunk_ids:
        chunk = memory.get(chunk_id)
        assert chunk.related_ids[0] == whole.id and chunk.token_count <= 200
    linked = memory.cypher(
        "MATCH (c:Episode)-[p:PART_OF]->(w:Episode) WHERE w.namespace = $namespace "
        "RETURN c.id, p.`index` ORDER BY p.`index`",
        namespace="default",
    )
    assert [row[0] for row in linked.rows] == whole.chunk_ids
    # The chunk holding the answer is recalled with its whole cited.
    card = memory.recall("where is the rollback password?", top_k=1)[0]
    assert card.id == whole.chunk_ids[-1] and whole.id in card.related_ids
    # Chunks are not turns of the session: the session lists the whole only.
    assert [e.id for e in memory.list(session_id="ops")] != [] and memory.cypher(
        "MATCH (e:Episode)-[:IN_SESSION]->(:Session) WHERE e.namespace = $namespace RETURN e.id",
        namespace="default",
    ).rows == [[whole.id]]


def test_duplicates_are_seen_again_not_stored_again(memory: Memory) -> None:
    first = memory.store("We chose Postgres for Atlas.", session_id="a", metadata={"source": "slack"})
    exact = memory.store("we chose  POSTGRES for Atlas.", session_id="b")
    near = memory.store("We chose Postgres for Atlas!", session_id="c")
    assert (exact.status, exact.id) == ("duplicate", first.id)
    assert (near.status, near.id) == ("duplicate", first.id)
    different = memory.store("We chose MySQL for Atlas.", session_id="d")
    assert different.status == "stored"
    episode = memory.get(first.id)
    assert episode.access_count == 2 and episode.last_seen is not None
    assert episode.sources == ["slack", "session:b", "session:c"]
    assert memory.stats().episodes == 2

    batch = memory.store_many(
        [{"content": "Kestrel ships on Friday."}, {"content": "Kestrel ships on Friday."},
         {"content": "Kestrel ships on Monday."}]
    )  # fmt: skip
    assert [r.status for r in batch] == ["stored", "duplicate", "stored"]
    assert batch[1].id == batch[0].id


def test_numbers_are_extracted_with_unit_and_context(memory: Memory) -> None:
    stored = memory.store("预算改成50万", session_id="周会")
    [number] = memory.get(stored.id).numbers
    assert (number.value, number.unit, number.context) == (500000.0, "CNY", "预算改成")


def test_a_later_decision_on_the_same_subject_supersedes(memory: Memory) -> None:
    first = memory.store("We decided to use Postgres for Atlas.", occurred_at="2026-01-01T10:00:00Z")
    launch = memory.store("We decided Atlas launches in May.", occurred_at="2026-01-02T10:00:00Z")
    assert launch.superseded == []
    second = memory.store("We decided to use MySQL for Atlas instead.",
                          occurred_at="2026-01-03T10:00:00Z")  # fmt: skip
    old = memory.explain(first.id).decisions[0]
    assert second.superseded == [old.id] and old.status == "superseded"
    assert memory.explain(launch.id).decisions[0].status == "active"
    budget = memory.store("预算改成50万", occurred_at="2026-01-04T10:00:00Z")
    raised = memory.store("预算改成60万", occurred_at="2026-01-05T10:00:00Z")
    assert raised.superseded == [memory.explain(budget.id).decisions[0].id]
    edges = memory.cypher(
        "MATCH (n:Decision)-[:SUPERSEDES]->(o:Decision) WHERE n.namespace = $namespace "
        "RETURN n.text, o.text ORDER BY n.decided_at",
        namespace="default",
    )
    assert edges.rows == [
        ["We decided to use MySQL for Atlas instead.", "We decided to use Postgres for Atlas."],
        ["预算改成60万", "预算改成50万"],
    ]


def test_a_decision_supersedes_one_that_fell_to_the_end_of_the_vector_cache(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The short-text vector cache holds two texts; five stores push the first decision to
    # its oldest end. The new decision (a sentence of a longer turn, so not cached) evicts
    # down to two: it once evicted the old decision before reading its vector (KeyError).
    monkeypatch.setattr("engine.ingest.lookups.SHORT_VECTOR_CACHE", 2)
    first = memory.store("We decided to use PostgreSQL for the billing service.")
    for day in range(4):
        memory.store(f"Lunch was at noon on day {day}.")
    second = memory.store(
        "Quick update from the team meeting. "
        "We decided to switch the billing service from PostgreSQL to MySQL."
    )
    assert second.status == "stored"
    assert second.superseded == [memory.explain(first.id).decisions[0].id]


def test_entities_resolve_by_alias_and_similar_name(memory: Memory) -> None:
    memory.store("I flew to New York for the Atlas offsite.")
    memory.store("New York City hotels are expensive this week.")
    profile = memory.entity("New York City")
    assert profile.entity.name == "New York" and "new york city" in profile.entity.aliases
    assert len(profile.latest_episodes) == 2
    memory.store("We booked Room 101 for the review.")
    memory.store("The review moved to Room 102.")
    assert memory.entity("Room 101").entity.id != memory.entity("Room 102").entity.id


def test_merge_entities_and_add_alias(memory: Memory) -> None:
    memory.store("Dana Scully reviewed the Atlas design.")
    memory.store("Yesterday Scully signed off.")
    memory.store("Kestrel launch is next week.")
    merged = memory.merge_entities("Dana Scully", "Scully")
    assert "scully" in merged.aliases and merged.mention_count >= 2
    assert len(memory.entity("Scully").latest_episodes) == 2
    with pytest.raises(NotFound):
        memory.merge_entities("Dana Scully", "Mulder")
    with pytest.raises(InvalidInput):
        memory.merge_entities("Dana Scully", "Scully")  # already one entity
    aliased = memory.add_alias("Atlas", "ATL")
    assert "atl" in aliased.aliases
    assert memory.entity("atl").entity.id == aliased.id
    with pytest.raises(InvalidInput):
        memory.add_alias("Kestrel", "ATL")  # names Atlas already


def test_warming_up_asks_no_llm(llm_stub: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "d", llm_base_url=llm_stub, llm_model="stub-1")
    with Memory.open(settings=settings) as memory:
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.9}
        memory.warm()  # its rehearsed store is not worth a paid call
        assert _Stub.seen == []
        memory.store("the team talked about what to ship")
        assert len(_Stub.seen) == 1


def test_llm_hook_replaces_the_rules_and_falls_back(llm_stub: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "d", llm_base_url=llm_stub, llm_model="stub-1",
                        llm_api_key="k-123")  # fmt: skip
    with Memory.open(settings=settings) as memory:
        _Stub.answer = {
            "entities": [{"name": "Zorblax", "type": "PRODUCT"}],
            "decisions": ["ship zorblax first"],
            "todos": [],
            "importance": 0.95,
        }
        by_llm = memory.store("the team talked about what to ship")
        assert by_llm.entities == ["Zorblax"] and by_llm.importance == 0.95
        assert by_llm.decisions == ["ship zorblax first"]
        request = _Stub.seen[-1]
        assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k-123"
        assert request["body"]["model"] == "stub-1"

        _Stub.answer = "this is not JSON"
        fallback = memory.store("We decided to use Postgres for Atlas.")
        assert fallback.decisions == ["We decided to use Postgres for Atlas."]  # the rules
        _Stub.answer = None  # HTTP 500
        assert memory.store("We decided to use Redis for Kestrel.").decisions == [
            "We decided to use Redis for Kestrel."
        ]
        _Stub.answer = {"entities": "not a list"}
        assert "Atlas" in memory.store("Atlas moved to the new cluster.").entities
        # Redaction happens before the LLM sees anything.
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.5}
        memory.store("Call Dana at 13800138000 about it.")
        assert "13800138000" not in json.dumps(_Stub.seen[-1]["body"])


def test_a_batch_is_embedded_by_the_model_thread_and_by_the_writer_after_its_ner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model thread embeds while NER runs; then the writing thread takes parts too. Each
    episode still gets its own content's vector."""
    from engine.embed import MiniLMEmbedder
    from engine.ingest import batch_models

    contents = [f"Kestrel milestone {i} ships on day {i * 3 + 1}." for i in range(7)]
    parts: dict[str, list[list[str]]] = {}
    model_thread_embedded, writer_joined = threading.Event(), threading.Event()
    embed, ner = MiniLMEmbedder.embed, batch_models.find_entities  # type: ignore[attr-defined]  # the name the writer calls

    def spied_embed(self: MiniLMEmbedder, texts: list[str]) -> list[list[float]]:
        vectors = embed(self, texts)
        if texts and set(texts) <= set(contents):  # a part of the batch, not entity names
            name = threading.current_thread().name
            parts.setdefault(name, []).append(list(texts))
            if name.startswith("hindsight-embed"):
                model_thread_embedded.set()
                writer_joined.wait(timeout=30)  # leave parts over for the writing thread
            else:
                writer_joined.set()
        return vectors

    def spied_ner(texts: list[str]) -> object:
        assert threading.current_thread() is threading.main_thread()
        assert model_thread_embedded.wait(timeout=30)  # embedding went on during NER
        return ner(texts)

    monkeypatch.setattr(MiniLMEmbedder, "embed", spied_embed)
    monkeypatch.setattr(batch_models, "find_entities", spied_ner)
    settings = Settings(data_dir=tmp_path / "data", embed_part_size=2)
    with Memory.open(settings=settings) as memory:
        results = memory.store_many([{"content": text} for text in contents])
        dense = memory._core.vectors.dense([r.id for r in results])
    assert [r.status for r in results] == ["stored"] * len(contents)
    model_parts = [p for name, got in parts.items() if name.startswith("hindsight-embed") for p in got]
    writer_parts = parts[threading.main_thread().name]
    assert model_parts and writer_parts
    taken = [text for part in model_parts + writer_parts for text in part]
    assert sorted(taken) == sorted(contents) and max(len(p) for p in model_parts + writer_parts) <= 2
    # The default embeds each text alone in int8: its vector whatever the batch or thread.
    own = embed(MiniLMEmbedder(), contents)
    for result, vector in zip(results, own, strict=True):
        cosines = [sum(a * b for a, b in zip(dense[result.id], other, strict=True)) for other in own]
        assert max(cosines) == cosines[own.index(vector)] > 0.9999  # its own, and the nearest


def test_a_failed_embedding_stores_nothing_of_its_batch(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.embed import MiniLMEmbedder

    memory.store("Atlas moved to Postgres.")
    embed = MiniLMEmbedder.embed
    calls: list[int] = []

    def failing_on_the_second_part(self: MiniLMEmbedder, texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        if len(calls) == 2:
            raise RuntimeError("the embedding runtime ran out of memory")
        return embed(self, texts)

    monkeypatch.setattr(MiniLMEmbedder, "embed", failing_on_the_second_part)
    texts = [f"Kestrel step {i} is done by the platform team." for i in range(40)]
    with pytest.raises(RuntimeError, match="ran out of memory"):
        memory.store_many([{"content": text} for text in texts])
    monkeypatch.undo()
    assert memory.stats().episodes == 1
    assert memory._core.vectors.count("default") == 1


def test_llm_statements_feed_reflection_and_fall_back_to_the_parse(
    llm_stub: str, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "d", llm_base_url=llm_stub, llm_model="stub-1")
    with Memory.open(settings=settings) as memory:
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.8}
        memory.store("Caroline: honestly the group thing yesterday was a lot", role="Caroline")
        _Stub.answer = {"statements": [
            {"subject": "I", "predicate": "attended", "object": "support group"},
            {"subject": "Bob", "predicate": "likes", "object": "chess", "hedged": True},
        ]}  # fmt: skip
        memory.reflect()
        prompt = _Stub.seen[-1]["body"]["messages"][0]["content"]
        assert "statements" in prompt and "honestly the group thing" in prompt
        assert "Caroline:" not in prompt.split("Text:")[-1]  # the transcript's name prefix goes
        rows = memory.cypher(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
            "RETURN a.name, f.predicate, b.name", namespace="default",
        ).rows  # fmt: skip
        # "Bob" is no entity of the episode: a named subject must be one
        assert rows == [["Caroline", "attended", "support group"]]

        # A wrong shape (a predicate that is no snake_case word): the parse instead.
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.8}
        memory.store("I work at Acme.", role="Dana")
        _Stub.answer = {"statements": [{"subject": "I", "predicate": "Works At!", "object": "Acme"}]}
        memory.reflect()
        rows = memory.cypher(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace AND "
            "a.name = 'Dana' RETURN f.predicate, b.name", namespace="default",
        ).rows  # fmt: skip
        assert rows == [["works_at", "Acme"]]


def test_a_slow_llm_spreads_reflection_over_runs_and_loses_nothing(
    llm_stub: str, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "d", llm_base_url=llm_stub, llm_model="stub-1",
                        reflection_time_budget=0.25)  # fmt: skip
    with Memory.open(settings=settings) as memory:
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.8}
        memory.store_many([{"content": f"I visited museum {n}.", "role": "Ana"} for n in range(4)])
        _Stub.answer = {"statements": [{"subject": "I", "predicate": "visit", "object": "museum"}]}
        _Stub.delay = 0.15  # two answers overrun the budget: a run reads two episodes
        seen = []
        while (summary := memory.reflect()).status == "done":
            seen.append(summary.episodes_seen)
        assert sum(seen) == 4 and max(seen) < 4 and min(seen) >= 1
        [[support]] = memory.cypher(
            "MATCH (a:Entity {name: 'Ana'})-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
            "RETURN f.support", namespace="default",
        ).rows  # fmt: skip
        assert support == 4  # every episode was read once, none dropped

"""Session digests on real stores: written by end_session, reflect and idle maintenance,
shown by `sessions`, first in recall for a question about a session or a day's talk, found
by an ordinary question's words, rebuilt without what was forgotten or purged, mirrored by
points that doctor and import keep, and never seen from another namespace."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import Memory, Settings
from engine.embed import Embedder
from engine.errors import InvalidInput, NotFound, WriteFailed
from engine.ingest.sentences import as_embedded
from engine.reflect.digest import session_sentences, worth_a_vector
from engine.reflect.digests import digest_id
from engine.reflect.sentence_vectors import sentence_vectors
from tests.llm_stub import _Stub

DAY = datetime(2023, 11, 14, 9, tzinfo=UTC).timestamp()
SESSIONS = {
    "berlin": [("user", "I moved to Berlin last month for a new job at Zalando."),
               ("assistant", "Congratulations! How is Berlin treating you?"),
               ("user", "Finding an apartment in Kreuzberg was hard, but I love the neighbourhood.")],
    "atlas": [("user", "We decided to use PostgreSQL for the Atlas backend."),
              ("assistant", "Good choice: Atlas needs transactions."),
              ("user", "The Atlas launch is planned for the end of November.")],
    "marathon": [("user", "I started training for a half marathon in Lisbon."),
                 ("assistant", "Nice! What is your target time?"),
                 ("user", "Under two hours, if my knee holds up.")],
}


def _tell(memory: Memory, namespace: str = "default") -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for day, (session, turns) in enumerate(SESSIONS.items()):
        for n, (role, text) in enumerate(turns):
            stored = memory.store(text, namespace=namespace, session_id=session, role=role,
                                  occurred_at=DAY + day * 2 * 86_400 + n * 60, importance=0.8)  # fmt: skip
            ids.setdefault(session, []).append(stored.id)
    return ids


def test_reflect_digests_every_session_and_sessions_lists_them(on_each_store: Memory) -> None:
    memory = on_each_store
    ids = _tell(memory)
    assert all(view.digest is None and view.stale for view in memory.sessions())
    memory.reflect()
    views = memory.sessions()
    assert [v.session_id for v in views] == ["marathon", "atlas", "berlin"]  # the latest first
    for view in views:
        digest = view.digest
        assert digest is not None and not view.stale and view.episodes == 3
        assert digest.episode_ids == ids[view.session_id]
        assert {s.episode_id for s in digest.sentences} <= set(ids[view.session_id])
        assert digest.participants == ["User", "Assistant"] and digest.language == "en"
        assert len(digest.text.split()) <= memory.settings.digest_words + 5
    atlas = memory.session("atlas").digest
    assert atlas is not None and "Atlas" in atlas.topics and "PostgreSQL" in atlas.text
    assert atlas.decisions == ["We decided to use PostgreSQL for the Atlas backend."]
    assert atlas.started_at.timestamp() == DAY + 2 * 86_400
    # The graph holds it as a node linked to its session and the episodes it draws on.
    rows = memory.cypher(
        "MATCH (d:Digest)-[:DIGEST_OF]->(s:Session) WHERE d.namespace = $namespace "
        "MATCH (d)-[:DRAWS_ON]->(e:Episode) RETURN s.name, count(e) ORDER BY s.name"
    ).rows
    assert rows == [["atlas", 3], ["berlin", 3], ["marathon", 3]]
    assert memory.doctor().ok


class _Asked:
    """The real embedder, keeping what it was asked to embed."""

    def __init__(self, real: Embedder) -> None:
        self.real, self.asked, self.multilingual = real, list[str](), None

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.asked += texts
        return self.real.embed(texts)


def test_digests_take_the_sentence_vectors_ingest_stored_and_embed_only_the_rest(on_each_store: Memory) -> None:
    memory, core = on_each_store, on_each_store._core
    _tell(memory)
    # The digest's splitter ends a sentence at ";", ingest's does not: those two it embeds itself.
    memory.store("Dave: We shipped the new parser on Monday;the whole team celebrated with pizza.",
                 session_id="atlas", role="Dave", occurred_at=DAY + 3 * 86_400, importance=0.8)  # fmt: skip
    episodes = core.graph.session_episodes("default", "atlas", DAY + 10 * 86_400)
    found = session_sentences([(e.id, e.role, e.content) for e in episodes])
    embedder = _Asked(core.embedder)
    vectors = sentence_vectors(embedder, core.vectors, episodes, found, chinese=False)  # type: ignore[arg-type]
    assert embedder.asked == ["Dave: We shipped the new parser on Monday;", "Dave: the whole team celebrated with pizza."]
    # Each vector is the sentence's own, made as ingest makes it (with its speaker label).
    content = {e.id: e.content for e in episodes}
    expected = core.embedder.embed([as_embedded(content[episode_id], text) for episode_id, _, text in found])
    cosines = [float(np.dot(got, want)) for got, want in zip(vectors, expected, strict=True) if any(got)]
    assert len(cosines) == sum(worth_a_vector(text) for _, _, text in found) == 5 and min(cosines) > 0.995


def test_end_session_digests_it_and_a_new_episode_makes_it_stale(memory: Memory) -> None:
    _tell(memory)
    memory.end_session("berlin")
    assert memory.session("berlin").digest is not None and memory.session("atlas").digest is None
    memory.store("We also talked about the Berlin marathon route.", session_id="berlin", role="user",
                 occurred_at=DAY + 600)  # fmt: skip
    assert memory.session("berlin").stale
    memory.end_session("berlin")
    view = memory.session("berlin")
    assert not view.stale and view.episodes == 4 and view.digest is not None


def test_maintain_digests_idle_sessions_only(settings: Settings) -> None:
    tuned = settings.model_copy(update={"digest_idle_minutes": 60.0})
    with Memory.open(settings=tuned) as memory:
        _tell(memory)  # stored just now: no session is idle yet
        memory.maintain()
        assert all(v.digest is None for v in memory.sessions())
    with Memory.open(settings=settings.model_copy(update={"digest_idle_minutes": 1e-9})) as memory:
        memory.maintain()
        assert all(v.digest is not None for v in memory.sessions())


def test_a_library_user_gets_digests_of_idle_sessions_without_asking(settings: Settings) -> None:
    """No `reflect`, no `maintain`, no `end_session`: an idle session is digested while the
    memory is open, and `close` stops the thread that does it."""
    idle = settings.model_copy(update={"digest_idle_minutes": 0.02})  # 1.2 s
    with Memory.open(settings=idle) as memory:
        _tell(memory)
        deadline = time.monotonic() + 60
        while any(v.digest is None for v in memory.sessions()) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert all(v.digest is not None for v in memory.sessions())
        cards = memory.recall("What did we talk about last time?", now=DAY + 10 * 86_400)
        assert cards[0].kind == "digest" and "marathon" in cards[0].content.lower()
    assert not [t for t in threading.enumerate() if t.name == "hindsight-idle-digests"]


def test_a_question_about_a_session_gets_its_digest_first(on_each_store: Memory) -> None:
    memory = on_each_store
    ids = _tell(memory)
    memory.reflect()
    asked_at = DAY + 10 * 86_400
    expected = {
        "What did we talk about last time?": "marathon",
        "Remind me what we covered in our first conversation": "berlin",
        "What did we discuss on November 16, 2023?": "atlas",
        "上次我们聊了什么？": "marathon",
    }
    for question, session in expected.items():
        cards = memory.recall(question, top_k=4, now=asked_at)
        first, rest = cards[0], cards[1:]
        assert first.kind == "digest" and first.session_id == session, (question, first.content)
        assert first.id == digest_id("default", session)
        assert set(first.related_ids) == set(ids[session])
        assert first.trace is not None and [h.channel for h in first.trace.channels] == ["session"]
        # The session's own turns follow it.
        assert {c.id for c in rest} == set(ids[session]), question
    # The caller's own session is not "the last time".
    [first, *_] = memory.recall("What did we talk about last time?", session_id="marathon", now=asked_at)
    assert first.session_id == "atlas"


def test_an_ordinary_question_may_reach_a_digest_and_never_ranks_it_first_by_fiat(memory: Memory) -> None:
    _tell(memory)
    memory.reflect()
    cards = memory.recall("half marathon training in Lisbon", top_k=10, now=DAY + 10 * 86_400)
    digests = [c for c in cards if c.kind == "digest"]
    assert [c.session_id for c in digests][:1] == ["marathon"]
    assert digests[0].trace is not None and {h.channel for h in digests[0].trace.channels} <= {"vector", "keyword"}
    assert cards[0].kind != "digest"  # the turn that says it outranks the digest of its session
    off = memory.settings.model_copy(update={"digest_card_weight": 0.0})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memory._core, "settings", off)
        assert not [c for c in memory.recall("half marathon training in Lisbon", top_k=10) if c.kind == "digest"]


def test_a_digest_never_keeps_a_forgotten_or_purged_episode(on_each_store: Memory) -> None:
    memory = on_each_store
    ids = _tell(memory)
    memory.reflect()
    secret = memory.get(ids["berlin"][2]).content
    assert "Kreuzberg" in (memory.session("berlin").digest or pytest.fail()).text
    memory.forget(ids["berlin"][2])
    digest = memory.session("berlin").digest
    assert digest is not None and "Kreuzberg" not in digest.text and ids["berlin"][2] not in digest.episode_ids
    assert not [c for c in memory.recall(secret, top_k=10) if c.kind == "digest" and "Kreuzberg" in c.content]
    memory.restore(ids["berlin"][2])
    assert "Kreuzberg" in (memory.session("berlin").digest or pytest.fail()).text
    memory.purge(ids["atlas"], dry_run=False)
    with pytest.raises(NotFound):
        memory.session("atlas")
    assert memory.cypher("MATCH (d:Digest) WHERE d.namespace = $namespace AND d.session_id = 'atlas' "
                         "RETURN count(d)").rows == [[0]]  # fmt: skip
    assert not [c for c in memory.recall("PostgreSQL for the Atlas backend", top_k=10) if c.kind == "digest"
                and c.session_id == "atlas"]  # fmt: skip
    assert memory.doctor().ok


def test_doctor_rebuilds_digest_points_and_import_carries_digests(memory: Memory, tmp_path: Path) -> None:
    _tell(memory)
    memory.reflect()
    memory._core.digests.delete([digest_id("default", "atlas")])
    report = memory.doctor()
    assert report.missing_digest_points == [digest_id("default", "atlas")] and not report.ok
    assert memory.doctor(repair=True).repaired and memory.doctor().ok
    memory.export(tmp_path / "backup.jsonl")
    with Memory.open(settings=Settings(data_dir=tmp_path / "other")) as other:
        other.import_(tmp_path / "backup.jsonl")
        assert [v.session_id for v in other.sessions() if v.digest] == ["marathon", "atlas", "berlin"]
        [first, *_] = other.recall("What did we talk about last time?", now=DAY + 10 * 86_400)
        assert first.kind == "digest" and first.session_id == "marathon"
        assert other.doctor().ok


def test_sessions_and_digests_stay_in_their_namespace(on_each_store: Memory) -> None:
    """Differential: what namespace a answers does not change when b writes sessions."""
    memory = on_each_store
    _tell(memory, "a")
    memory.reflect(namespace="a")
    asked_at = DAY + 10 * 86_400
    questions = ["What did we talk about last time?", "Remind me of our first conversation",
                 "What did we discuss on November 16, 2023?", "half marathon in Lisbon"]  # fmt: skip

    def answers() -> list[Any]:
        cards = [[(c.id, c.content, round(c.score, 6)) for c in memory.recall(q, namespace="a", now=asked_at)]
                 for q in questions]  # fmt: skip
        return [memory.sessions(namespace="a"), cards]

    before = answers()
    for n, text in enumerate(["Remind me: the vault code for Orion is 4417.",
                              "Our last chat was about Orion's secret launch."]):  # fmt: skip
        memory.store(text, namespace="b", session_id="marathon", role="user", occurred_at=DAY + 9 * 86_400 + n,
                     importance=0.9)  # fmt: skip
    memory.store("Zephyr moved its release train to Thursdays.", namespace="b", session_id="zz-latest",
                 role="user", occurred_at=DAY + 9.5 * 86_400, importance=0.9)  # fmt: skip
    memory.reflect(namespace="b")
    assert answers() == before
    assert [v.session_id for v in memory.sessions(namespace="b")] == ["zz-latest", "marathon"]
    with pytest.raises(NotFound):
        memory.session("zz-latest", namespace="a")


def test_bad_session_arguments_are_clear_errors(memory: Memory) -> None:
    for bad in ("", "   "):
        with pytest.raises(InvalidInput) as raised:
            memory.session(bad)
        assert raised.value.field == "session_id"
        with pytest.raises(InvalidInput):
            memory.end_session(bad)
    with pytest.raises(InvalidInput) as raised:
        memory.sessions(limit=0)
    assert raised.value.field == "limit"
    with pytest.raises(NotFound):
        memory.session("never-stored")


def test_an_llm_may_write_the_digest_and_the_rules_stand_in_when_it_slips(llm_stub: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "d", llm_base_url=llm_stub, llm_model="stub-1")
    with Memory.open(settings=settings) as memory:
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.8}
        _tell(memory)
        _Stub.answer = {"statements": []}
        memory.reflect()  # the stub answers statements for digests too: a wrong shape, so the rules
        assert all(v.digest and v.digest.written_by == "rules" for v in memory.sessions())
        _Stub.answer = {"summary": "The user moved to Berlin for a job at Zalando and found a flat in Kreuzberg.",
                        "topics": ["moving to Berlin", "flat hunting"]}  # fmt: skip
        memory.end_session("berlin")
        digest = memory.session("berlin").digest
        assert digest is not None and digest.written_by == "llm"
        assert digest.text.endswith("found a flat in Kreuzberg.") and digest.topics == ["moving to Berlin", "flat hunting"]
        prompt = _Stub.seen[-1]["body"]["messages"][0]["content"]
        assert "User: I moved to Berlin" in prompt and "Assistant: Congratulations!" in prompt
        # A number the session never said: the summary is refused, the central sentences stand in.
        _Stub.answer = {"summary": "The user moved to Berlin in 2019.", "topics": []}
        memory.end_session("berlin")
        digest = memory.session("berlin").digest
        assert digest is not None and digest.written_by == "rules" and "2019" not in digest.text


def test_a_digest_that_cannot_be_rebuilt_after_a_forget_is_removed(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _tell(memory)
    memory.reflect()

    def full_disk(points: object) -> None:
        raise WriteFailed("disk full (simulated)")

    monkeypatch.setattr(memory._core.digests, "upsert", full_disk)
    forgotten = memory.forget(ids["berlin"][2])  # the forget itself succeeds
    assert forgotten.deleted_at is not None
    view = memory.session("berlin")
    assert view.digest is None and view.stale  # nothing that still holds "Kreuzberg"
    assert not [c for c in memory.recall("apartment in Kreuzberg", top_k=10)
                if c.kind == "digest" and c.session_id == "berlin"]  # fmt: skip
    monkeypatch.undo()
    memory.reflect()  # the next reflection writes it again, without the forgotten turn
    digest = memory.session("berlin").digest
    assert digest is not None and "Kreuzberg" not in digest.text and memory.doctor().ok


@pytest.mark.parametrize(("turns", "expected", "never"), [
    (["We can paint the shed green or blue, you choose for yourself.",
      "Different paint dries differently, so choose the shed paint carefully.",
      "The shed needs two coats of paint before the rain."],
     ["paint", "shed"], {"choose", "yourself", "different", "differently", "carefully"}),
    (["这周末我们聊了一些装修的事情，比如厨房的瓷砖。",
      "厨房的瓷砖要选防滑的，例如哑光的那种。",
      "这些瓷砖什么时候到？厨房下周开工。"],
     ["厨房", "瓷砖"], {"一些", "比如", "例如", "这些", "什么"}),
])  # fmt: skip
def test_a_digests_topic_words_are_nouns_in_both_languages(
    memory: Memory, turns: list[str], expected: list[str], never: set[str]
) -> None:
    for i, turn in enumerate(turns):
        memory.store(turn, session_id="home", role="user", importance=0.8, occurred_at=DAY + 60 * i)
    memory.end_session("home")
    digest = memory.session("home").digest
    assert digest is not None
    assert set(expected) <= set(digest.topics) and not never & set(digest.topics), digest.topics

"""Keyword keys with session context (engine/keyword_keys.py), on the real stores.

An answer turn is found by the words of the question turn before it; forgetting, purging or
archiving a turn takes its words out of its neighbours' keys; restoring brings them back;
doctor rekeys points written under an older recipe.
"""

from __future__ import annotations

from engine import Memory
from engine.keyword_keys import KEY_VERSION
from engine.lifecycle.forget import archive_episodes
from engine.stores.vectors import SparseVector
from engine.text import bm25_query, tokenize


def _keyword_ids(memory: Memory, word: str, namespace: str = "default") -> list[str]:
    indices, values = bm25_query(tokenize(word))
    hits = memory._core.vectors.search_sparse(namespace, SparseVector(indices=indices, values=values), 10)
    return [h.id for h in hits]


def _dialogue(memory: Memory, session: str | None, namespace: str = "default") -> list[str]:
    turns = [
        ("alice", "Where did you go for the winter holiday?"),
        ("bob", "Zanzibar, with my sister. The beaches were unreal."),
        ("alice", "Did you try the spice tour?"),
    ]
    results = memory.store_many(
        [{"content": text, "role": role, "session_id": session, "namespace": namespace,
          "occurred_at": f"2024-01-0{i + 1}T10:00:00Z"} for i, (role, text) in enumerate(turns)]
    )  # fmt: skip
    return [r.id for r in results]


def test_an_answer_turn_is_found_by_the_words_of_its_question(memory: Memory) -> None:
    question, answer, follow_up = _dialogue(memory, "trip")
    found = _keyword_ids(memory, "holiday")
    assert found[0] == question  # its own words count most
    assert answer in found and found.index(answer) < found.index(follow_up)  # 1 step vs 2
    cards = memory.recall("what about the winter holiday?", top_k=3)
    answer_card = next(c for c in cards if c.id == answer)
    assert answer_card.trace is not None
    assert "keyword" in {h.channel for h in answer_card.trace.channels}


def test_without_a_session_each_turn_is_keyed_alone(memory: Memory) -> None:
    question, answer, _ = _dialogue(memory, None)
    assert _keyword_ids(memory, "holiday") == [question]
    assert _keyword_ids(memory, "zanzibar") == [answer]


def test_forget_takes_a_turns_words_out_of_its_neighbours_and_restore_returns_them(
    memory: Memory,
) -> None:
    question, answer, follow_up = _dialogue(memory, "trip")
    assert set(_keyword_ids(memory, "zanzibar")) == {question, answer, follow_up}
    memory.forget(answer)
    assert _keyword_ids(memory, "zanzibar") == []
    memory.restore(answer)
    assert set(_keyword_ids(memory, "zanzibar")) == {question, answer, follow_up}


def test_purge_and_archive_close_the_chain_and_rekey_the_neighbours(memory: Memory) -> None:
    question, answer, follow_up = _dialogue(memory, "trip")
    memory.purge([answer], dry_run=False)
    assert _keyword_ids(memory, "zanzibar") == []
    # The chain closes over the purged turn: the question holds the follow-up's words now.
    assert _keyword_ids(memory, "spice") == [follow_up, question]
    assert [n.id for n in memory.explain(question).neighbours if n.relation == "next"] == [follow_up]
    question2, answer2, follow_up2 = _dialogue(memory, "trip", namespace="other")
    assert len(_keyword_ids(memory, "zanzibar", "other")) == 3
    archive_episodes(memory._core.graph, memory._core.vectors, memory._core.archive, "other",
                     [(answer2, "test")], now=0.0, settings=memory.settings)  # fmt: skip
    assert _keyword_ids(memory, "zanzibar", "other") == []
    assert _keyword_ids(memory, "spice", "other") == [follow_up2, question2]


def test_an_archived_turn_comes_back_to_its_place_in_the_chain(memory: Memory) -> None:
    question, answer, follow_up = _dialogue(memory, "trip")
    later = memory.store("Kilimanjaro is next on the list", session_id="trip",
                         occurred_at="2024-01-04T10:00:00Z").id  # fmt: skip
    for gone in (answer, follow_up):  # a run of two leaves the chain
        archive_episodes(memory._core.graph, memory._core.vectors, memory._core.archive, "default",
                         [(gone, "test")], now=0.0, settings=memory.settings)  # fmt: skip
    assert _next(memory, question) == later
    memory.restore(follow_up)
    assert (_next(memory, question), _next(memory, follow_up)) == (follow_up, later)
    memory.restore(answer)  # between the question and the follow-up, as it was
    chain = [question, answer, follow_up, later]
    assert [_next(memory, i) for i in chain] == chain[1:] + [None]
    assert set(_keyword_ids(memory, "zanzibar")) == {question, answer, follow_up, later}
    memory._core.graph.rejoin_session("default", answer, "trip")  # on the chain already: no change
    assert [_next(memory, i) for i in chain] == chain[1:] + [None]


def _next(memory: Memory, episode_id: str) -> str | None:
    following = memory._core.graph.session_neighbours("default", episode_id)[1]
    return None if following is None else following.id


def test_doctor_rekeys_points_of_an_older_recipe(memory: Memory) -> None:
    question, answer, follow_up = _dialogue(memory, "trip")
    # Rewrite one key as an old point would hold it: own words only, recipe 1.
    old = memory._core.vectors.payloads([answer])[answer]
    assert old.key_version == KEY_VERSION
    indices, values = bm25_query(tokenize("Zanzibar, with my sister."))
    memory._core.vectors.set_keyword({question: SparseVector(indices=indices, values=values)}, 1)
    assert question not in _keyword_ids(memory, "beaches")
    report = memory.doctor()
    assert report.stale_keys == [question] and not report.ok
    repaired = memory.doctor(repair=True)
    assert repaired.repaired and memory.doctor().ok
    assert question in _keyword_ids(memory, "beaches")


def test_a_new_turn_joins_the_key_of_the_turns_before_it(memory: Memory) -> None:
    earlier = _dialogue(memory, "trip")
    later = memory.store("Kilimanjaro is next on the list", session_id="trip", role="bob",
                         occurred_at="2024-01-04T10:00:00Z")  # fmt: skip
    found = _keyword_ids(memory, "kilimanjaro")
    assert found[0] == later.id and set(found) == {later.id, *earlier}  # 3 steps reach back

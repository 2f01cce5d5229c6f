"""`explain_fact`: why the memory believes a fact, on every store. The rule that read it, what
that rule reads, and for each episode it stands on the sentence and the words the rule took;
a forgotten source drops out, another namespace's fact is not found, a bad id is refused."""

from __future__ import annotations

import pytest

from engine import InvalidInput, Memory, NotFound
from engine.reflect.rule_book import rule_book
from engine.views import Fact

NS = "explain-facts"


def _reflected(memory: Memory) -> None:
    while memory.reflect(namespace=NS).status == "done":
        pass


def _fact(memory: Memory, name: str, predicate: str, obj: str) -> Fact:
    return next(f for f in memory.entity(name, namespace=NS).facts if f.predicate == predicate and f.object == obj)


def test_a_fact_names_its_rule_and_what_it_read_in_each_source(on_each_store: Memory) -> None:
    memory = on_each_store
    first = memory.store("I started a new job at Canva last spring.", namespace=NS, role="user",
                         session_id="s1", occurred_at="2026-03-01T09:00:00Z")
    memory.store("Do you like it there?", namespace=NS, role="assistant", session_id="s1",
                 occurred_at="2026-03-01T09:01:00Z")
    second = memory.store("Honestly I work at Canva because of the design team.", namespace=NS, role="user",
                          session_id="s2", occurred_at="2026-04-01T09:00:00Z")
    chinese = memory.store("我住在杭州，每天坐地铁。", namespace=NS, role="user", session_id="s3",
                           occurred_at="2026-05-01T09:00:00Z")  # fmt: skip
    _reflected(memory)

    job = _fact(memory, "the user", "works_at", "Canva")
    explained = memory.explain_fact(job.id, namespace=NS)
    assert explained.fact.id == job.id and explained.rule == job.rule
    assert explained.rule_about == rule_book()[job.rule].about
    assert [s.episode_id for s in explained.sources] == [first.id, second.id]  # oldest first
    assert [s.said for s in explained.sources] == [memory.get(first.id, namespace=NS).content,
                                                   memory.get(second.id, namespace=NS).content]  # fmt: skip
    assert all(s.words[0] == "I" and s.words[-1] == "Canva" for s in explained.sources)
    assert [s.words[1] for s in explained.sources] == ["started", "work"]  # the words that carry the predicate
    assert explained.why.startswith("the user works at Canva: read by ") and explained.why.endswith("current.")
    assert "from 2 episodes" in explained.why

    home = _fact(memory, "the user", "lives_in", "杭州")
    [source] = memory.explain_fact(home.id, namespace=NS).sources
    assert (source.episode_id, source.said, source.words) == (chinese.id, "我住在杭州，每天坐地铁。", ["我", "住在", "杭州"])

    memory.forget(first.id, namespace=NS)  # the fact stands on the other source alone
    [left] = memory.explain_fact(job.id, namespace=NS).sources
    assert left.episode_id == second.id
    assert "from 1 episode;" in memory.explain_fact(job.id, namespace=NS).why
    memory.forget(second.id, namespace=NS)
    with pytest.raises(NotFound):
        memory.explain_fact(job.id, namespace=NS)

    with pytest.raises(NotFound):
        memory.explain_fact(home.id, namespace="someone-else")
    for bad in ("", "x" * 129):
        with pytest.raises(InvalidInput) as refused:
            memory.explain_fact(bad, namespace=NS)
        assert refused.value.field == "id"

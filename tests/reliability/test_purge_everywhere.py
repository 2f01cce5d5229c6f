"""A purge is complete whatever the memory derived from the purged episodes: facts, fact cards,
entities, session digests, error signatures, task links, lessons learned from failures and
their fixes, lessons an agent stated. Each episode holds a made-up word of its own; after any
purge, no read of any entry point (recall on every layer, list, get, explain, entity, sessions,
Cypher over every node and relationship, export, the archive) returns a string holding a purged
episode's word. On both graph backends.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from engine import Memory
from engine.errors import NotFound
from tests.backends import BACKENDS, open_settings

WORDS = ["velmora", "tarquist", "olvenhaven", "brisklow", "quenmoor", "dravenport", "istelby", "korvanth",
         "ulmbright", "senmark", "prevadia", "gorsewick", "fennaway", "harrowdel", "jostrand", "lindqvar",
         "mordaunt", "nesterby", "orrinvale", "pellucent", "quillon", "rossmarch", "skelbrook", "thistleby"]  # fmt: skip
ERROR = "psql: error: connection to server at \"db\" failed: FATAL: sorry, too many clients already"
LIKES = ["pottery", "jazz", "hiking", "chess"]


def _fill(memory: Memory, words: Iterator[str]) -> dict[str, str]:
    """Chat, task runs that fail and are fixed (the same error each time), a stated lesson;
    then reflection. Each episode's own word, by episode id."""
    said: dict[str, str] = {}
    for day, like in enumerate(LIKES):
        word = next(words)
        stored = memory.store(f"I love {like}. Greetings from {word.title()}.", role="Sam", session_id="chat",
                              occurred_at=f"2026-10-0{day + 1}T09:00:00Z", importance="high")  # fmt: skip
        said[stored.id] = word
    for run in range(3):
        task, failure, fix = next(words), next(words), next(words)
        result = memory.store_task(
            f"Run the {task.title()} migrations", [
                {"content": f"migrate {failure}\n{ERROR}", "role": "psql", "outcome": "failure"},
                {"content": f"raised max_connections to 200 for {fix.title()} and restarted postgres",
                 "role": "psql", "outcome": "success"},
            ], outcome="success", session_id=f"ops{run}", occurred_at=f"2026-10-1{run}T10:00:00Z",
        )  # fmt: skip
        for episode, word in zip([result.task, *result.steps], (task, failure, fix), strict=True):
            said[episode.id] = word
    word = next(words)
    stated = memory.store(f"When the {word.title()} API answers HTTP 429, back off for a minute before retrying.",
                          layer="semantic", session_id="ops9")  # fmt: skip
    said[stated.id] = word
    memory.reflect()
    return said


def _strings(value: Any) -> Iterator[str]:
    """Every string in a read's answer, walked without recursion."""
    stack = [value.model_dump(mode="json") if isinstance(value, BaseModel) else value]
    while stack:
        node = stack.pop()
        if isinstance(node, BaseModel):
            stack.append(node.model_dump(mode="json"))
        elif isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def _every_read(memory: Memory, words: list[str], tmp: Path) -> list[str]:
    """What every read entry point answers about the namespace."""
    answers: list[Any] = [memory.list(limit=1000, include_deleted=True), memory.archived(), memory.sessions(limit=1000)]
    ids = [e.id for e in memory.list(limit=1000, include_deleted=True)]
    answers += [memory.get(i) for i in ids] + [memory.explain(i) for i in ids]
    answers += [memory.session(s.session_id) for s in memory.sessions(limit=1000)]
    questions = [*words, "What does Sam like?", "how did we fix the psql too many clients error last time?",
                 "what have we learned about too many clients?", "what did we talk about last time?"]  # fmt: skip
    for question in questions:
        for layer in (None, "semantic", "episodic"):
            answers.append(memory.recall(question, top_k=50, layer=layer))
    names = memory.cypher("MATCH (e:Entity) WHERE e.namespace = $namespace RETURN e.name").rows
    for name in [row[0] for row in names] + words:
        try:
            answers.append(memory.entity(name))
        except NotFound:
            pass
    answers.append(memory.cypher("MATCH (n) WHERE n.namespace = $namespace RETURN n"))
    answers.append(memory.cypher("MATCH (n)-[r]-(m) WHERE n.namespace = $namespace RETURN r, m"))
    memory.export(tmp / "export.jsonl", namespaces=["default"])
    answers.append((tmp / "export.jsonl").read_text(encoding="utf-8"))
    return [text.lower() for text in _strings(answers)]


def _derived_quote(memory: Memory, word: str) -> bool:
    """Whether a fact, a lesson or a session's digest holds `word`."""
    derived = [memory.recall(word, layer="semantic", top_k=20), [s.digest for s in memory.sessions(limit=100)]]
    return any(word in text.lower() for text in _strings(derived))


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**16))
def test_no_read_returns_a_purged_episodes_words(backend: str, seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp, Memory.open(settings=open_settings(backend, Path(tmp))) as memory:
        said = _fill(memory, iter(rng.sample(WORDS, len(WORDS))))
        lessons = memory.recall("what have we learned about too many clients?", layer="semantic", top_k=10)
        assert any("max_connections" in card.content for card in lessons), "no lesson to purge from"
        seen = _every_read(memory, list(said.values()), Path(tmp))
        assert all(any(word in text for text in seen) for word in said.values()), "a word no read shows"
        for _round in range(2):
            # One episode whose words something derived quotes (a lesson, a fact, a digest),
            # and others at random.
            quoted = sorted(i for i in said if _derived_quote(memory, said[i]))
            assert quoted, "nothing derived quotes an episode: the case tests nothing"
            purged = sorted({rng.choice(quoted), *rng.sample(sorted(said), rng.randint(0, 3))})
            memory.purge(purged, dry_run=False)
            gone = {said.pop(i) for i in purged}
            seen = _every_read(memory, [*gone, *said.values()], Path(tmp))
            leaks = sorted({word for word in gone for text in seen if word in text})
            assert not leaks, f"purged words still read: {leaks}"
            assert memory.doctor().ok

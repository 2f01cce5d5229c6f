"""Congruence: the same scenario on a local `Memory` and on `Memory.connect` to a real
`hindsight serve`, on each backend, gives the same results: the same models, the same cards in
the same order with the same scores and traces, the same exceptions naming the same fields.

Each side has its own store; ids (UUIDs) are compared by where they first appear, and the times
a store stamps with its own clock (created_at) are left out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engine import AccessDenied, InvalidInput, Memory, NotFound, ReadOnlyViolation, RemoteMemory
from tests.backends import BACKENDS, backend_env, open_settings
from tests.serving import free_port, served

TOKEN = "remote-token-0123456789"
NAMESPACE = "congruence"
NOW = datetime(2024, 3, 1, 12, tzinfo=UTC)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Stamped by each store's clock at write or run time, not by the scenario.
CLOCKED = {"created_at", "ran_at", "until", "at", "last_accessed_at", "deleted_at", "age_days",
           "decay", "final", "score", "valid_from", "first_seen", "last_seen", "built_at"}  # fmt: skip

TURNS = [
    ("kickoff", "user", "We decided to use PostgreSQL for Project Atlas.", "2024-02-01T09:00:00"),
    ("kickoff", "assistant", "Noted: Atlas runs on PostgreSQL; Dana owns the migration.",
     "2024-02-01T09:01:00"),
    ("kickoff", "user", "The Atlas launch is on November 20.", "2024-02-01T09:02:00"),
    ("weekly", "user", "Dana moved the Atlas launch to November 27.", "2024-02-08T10:00:00"),
    ("weekly", "user", "我们决定把 Atlas 的预算改成50万。", "2024-02-08T10:05:00"),
    ("weekly", "user", "Priya prefers Redis for the cache of Project Kestrel.", "2024-02-08T10:06:00"),
    ("retro", "user", "Dana likes hiking in the Alps on weekends.", "2024-02-15T16:00:00"),
]  # fmt: skip


def _canonical(value: Any, ids: dict[str, str]) -> Any:
    """A result with each UUID replaced by the order of its first appearance, clocked fields
    dropped."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: _canonical(v, ids) for k, v in value.items() if k not in CLOCKED}
    if isinstance(value, (list, tuple)):
        return [_canonical(v, ids) for v in value]
    if isinstance(value, str):
        return UUID.sub(lambda m: ids.setdefault(m.group(0), f"#{len(ids)}"), value)
    if isinstance(value, float):
        return round(value, 9)
    return value


def _outcome(call: Callable[[], Any]) -> Any:
    """What a call returned, or which error it raised and the field it named."""
    try:
        return call()
    except InvalidInput as exc:
        return ("InvalidInput", exc.field)
    except NotFound as exc:
        return ("NotFound", exc.what)
    except ReadOnlyViolation:
        return ("ReadOnlyViolation",)


def _scenario(memory: Memory | RemoteMemory, ns: str) -> list[Any]:
    """Every method of the façade the REST API offers, reads after writes."""
    out: list[Any] = []
    results = memory.store_many([
        {"content": c, "session_id": s, "role": r, "occurred_at": t, "namespace": ns}
        for s, r, c, t in TURNS
    ])  # fmt: skip
    out.append(results)
    ids = [r.id for r in results]
    out.append(memory.store("Remember: the Atlas demo needs two reviewers.", namespace=ns,
                            importance="high", occurred_at=NOW, metadata={"ticket": "ATL-9"},
                            related_ids=[ids[2]]))  # fmt: skip
    for question in ("When is the Atlas launch?", "Which database did we pick for Atlas?",
                     "预算是多少", "What does Dana like to do?"):  # fmt: skip
        out.append(memory.recall(question, namespace=ns, top_k=4, now=NOW))
    out.append(memory.recall("Atlas", namespace=ns, top_k=3, now=NOW, role="user",
                             capabilities=["search"], max_tokens=40))  # fmt: skip
    out.append(memory.list(namespace=ns, limit=3, offset=1))
    out.append(memory.list(namespace=ns, session_id="weekly"))
    out.append(memory.get(ids[0], namespace=ns))
    out.append(memory.explain(ids[3], namespace=ns))
    out.append(memory.entity("Atlas", namespace=ns))
    summary = memory.reflect(namespace=ns, force=True)
    out.append((summary.episodes_seen, summary.facts_written, summary.status))
    out.append(memory.entity("Dana", namespace=ns).facts)
    out.append(memory.sessions(namespace=ns))  # reflect digested every session
    out.append(memory.session("weekly", namespace=ns))
    out.append(memory.recall("What did we talk about last time?", namespace=ns, top_k=3, now=NOW))
    out.append(memory.stats(namespace=ns))
    out.append(memory.cypher(
        "MATCH (e:Entity) WHERE e.namespace = $namespace RETURN e.name AS name "
        "ORDER BY e.mention_count DESC, e.name LIMIT $n", {"n": 3}, namespace=ns))  # fmt: skip
    out.append(memory.store_task("Deploy Atlas to staging", [
        {"content": "helm upgrade atlas ./chart\nError: UPGRADE FAILED: another operation is in progress",
         "role": "helm", "outcome": "failure"},
        {"content": "helm rollback atlas 3\nRollback was a success!", "role": "helm-admin", "outcome": "success"},
        {"content": "helm upgrade atlas ./chart\nRelease \"atlas\" has been upgraded.", "role": "helm",
         "outcome": "success"},
    ], outcome="success", namespace=ns, session_id="deploy", occurred_at=NOW))  # fmt: skip
    out.append(memory.recall("Error: UPGRADE FAILED: another operation is in progress. How did we fix it?",
                             namespace=ns, top_k=2, now=NOW))  # fmt: skip
    out.append(memory.forget(ids[2], namespace=ns).content)
    out.append(memory.recall("When is the Atlas launch?", namespace=ns, top_k=3, now=NOW))
    out.append(memory.restore(ids[2], namespace=ns).deleted_at)
    out.append([(e.action, e.ids) for e in memory.audit(namespace=ns, limit=5)])
    for bad in (
        lambda: memory.store("   ", namespace=ns),
        lambda: memory.store("ok", namespace=ns, importance=3),
        lambda: memory.store("ok", namespace=ns, related_ids=["no-such-episode"]),
        lambda: memory.store_many([{"content": "fine", "namespace": ns},
                                   {"content": "x", "namespace": ns, "kind": "poem"}]),
        lambda: memory.recall("x", namespace=ns, top_k=0),
        lambda: memory.recall("x", namespace=ns, capabilities="search"),
        lambda: memory.get("no-such-episode", namespace=ns),
        lambda: memory.entity("Nobody", namespace=ns),
        lambda: memory.entity(" ", namespace=ns),
        lambda: memory.cypher("MATCH (n) RETURN n", namespace=ns),
        lambda: memory.cypher("CREATE (n:Episode) RETURN n", namespace=ns),
        lambda: memory.list(namespace=ns, limit=0),
        lambda: memory.session("never-stored", namespace=ns),
        lambda: memory.sessions(namespace=ns, limit=0),
        lambda: memory.restore(ids[0], namespace=ns),
        lambda: memory.store("ok", namespace=ns, outcome="partly"),
        lambda: memory.store_task("t", "ls", namespace=ns),  # type: ignore[arg-type]
        lambda: memory.store_task("t", [{"content": "ok"}, {"content": "x", "outcome": "meh"}], namespace=ns),
    ):  # fmt: skip
        out.append(_outcome(bad))
    out.append(memory.stats(namespace=ns))  # the refused calls stored nothing
    return out


@contextmanager
def _server(backend: str, data_dir: Path, log: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, **backend_env(backend, data_dir), "HINDSIGHT_API_TOKEN": TOKEN,
           "HF_HUB_OFFLINE": "1", "HINDSIGHT_REFLECTION_INTERVAL": "0"}  # fmt: skip
    with served(["--port", str(port), "--data-dir", str(data_dir)], env, log, port) as base:
        yield base


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_remote_memory_answers_as_a_local_one(backend: str, tmp_path: Path) -> None:
    """One namespace, written first locally, then (on an emptied store) through the server:
    entity ids derive from the namespace, so the two memories are the same but for episode
    ids and clocks."""
    with Memory.open(settings=open_settings(backend, tmp_path / "local")) as local:
        here = _scenario(local, NAMESPACE)
    open_settings(backend, tmp_path / "served")  # on Neo4j: empty the database again
    with _server(backend, tmp_path / "served", tmp_path / "server.log") as base:
        with Memory.connect(base, token=TOKEN, namespace=NAMESPACE) as remote:
            there = _scenario(remote, NAMESPACE)
    assert len(here) == len(there)
    local_ids: dict[str, str] = {}
    remote_ids: dict[str, str] = {}
    for step, (mine, theirs) in enumerate(zip(here, there, strict=True)):
        assert type(mine) is type(theirs), step
        assert _canonical(mine, local_ids) == _canonical(theirs, remote_ids), step


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteMemory]:
    where = tmp_path_factory.mktemp("remote")
    with _server("embedded", where / "d", where / "server.log") as base:
        with Memory.connect(base, token=TOKEN, namespace="kestrel") as memory:
            yield memory


def test_repeated_remote_recalls_agree_to_the_last_digit(remote: RemoteMemory) -> None:
    """CLOCKED leaves scores out above (decay reads each store's created_at); here the same
    server answers twice, and each card's score is its trace's final."""
    remote.store("Kestrel uses Redis for its cache.", occurred_at="2024-02-01T00:00:00")
    cards = remote.recall("What does Kestrel use for caching?", now=NOW)
    again = remote.recall("What does Kestrel use for caching?", now=NOW)
    assert cards and [c.score for c in cards] == [c.score for c in again]
    assert cards[0].trace is not None and cards[0].trace.final == cards[0].score


def test_a_wrong_token_is_access_denied(remote: RemoteMemory) -> None:
    base = str(remote._client.base_url)
    with Memory.connect(base, token="wrong-token-0123456789") as stranger:
        with pytest.raises(AccessDenied):
            stranger.recall("anything")
        assert stranger.health().status == "ok"  # /health is open

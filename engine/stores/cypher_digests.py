"""Sessions and their digests in Cypher, once for every Cypher backend: the statements
(`DigestStatements`, part of `GraphStatements`) and the `DigestGraph` role's methods
(`CypherDigests`, mixed into `CypherGraphStore`).

A session's episodes are those linked IN_SESSION to its node (a long episode's chunks are
not: the whole stands for them). A digest is replaced whole: its node and edges are removed
and written again, in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.models import Episode, from_epoch, session_node_id
from engine.stores.base import SessionRow
from engine.stores.cypher_dialect import Dialect
from engine.stores.cypher_parts import (
    CypherRunner,
    Statement,
    StatementSet,
    episode_columns,
    live_condition,
    statement,
)
from engine.stores.graph_rows import episode_from_columns, properties
from engine.views import Digest, DigestSentence
from graph_schema.definitions import DIGEST

__all__ = ["CypherDigests", "DigestStatements", "digest_from", "digest_row"]


class DigestStatements(StatementSet):
    """Reads of sessions, and the digests' reads and writes."""

    def __init__(self, d: Dialect) -> None:
        super().__init__(d)
        live = live_condition("ep")
        members = "MATCH (ep:Episode)-[:IN_SESSION]->(s:Session) WHERE s.namespace = $ns AND ep.namespace = $ns"
        self.session_rows = statement(
            f"{members} AND ($sid = '' OR s.id = $sid) AND {live} RETURN s.name, min(ep.occurred_at), "
            "max(ep.occurred_at), count(ep), max(ep.created_at)",
            "ns", "sid", "now",
        )  # fmt: skip
        self.session_episodes = statement(
            f"{members} AND s.id = $sid AND {live} RETURN {episode_columns('ep')} "
            "ORDER BY ep.occurred_at, ep.created_at, ep.id",
            "ns", "sid", "now",
        )  # fmt: skip
        self.digests = statement(
            "MATCH (n:Digest) WHERE n.namespace = $ns AND ($sid = '' OR n.session_id = $sid) RETURN n",
            "ns", "sid",
        )  # fmt: skip
        self.digests_by_id = statement(
            "UNWIND $ids AS i MATCH (n:Digest {id: i}) WHERE n.namespace = $ns RETURN n", "ns", "ids"
        )
        self.delete_digests = statement(
            "UNWIND $sids AS x MATCH (n:Digest) WHERE n.namespace = $ns AND n.session_id = x DETACH DELETE n",
            "ns", "sids",
        )  # fmt: skip
        self.create_digests = statement(
            "UNWIND $rows AS r CREATE (n:Digest {id: r.id}) SET " + self.set_clause(DIGEST.properties),
            "rows",
        )
        self.digest_of = statement(
            "UNWIND $rows AS r MATCH (a:Digest {id: r.a}) MATCH (b:Session {id: r.b}) CREATE (a)-[:DIGEST_OF]->(b)",
            "rows",
        )
        self.draws_on = statement(
            "UNWIND $rows AS r MATCH (a:Digest {id: r.a}) MATCH (b:Episode {id: r.b}) CREATE (a)-[:DRAWS_ON]->(b)",
            "rows",
        )


def digest_row(digest: Digest) -> dict[str, Any]:
    """A digest as the properties of its node (times as epoch seconds, sentences as JSON)."""
    return {
        "id": digest.id, "namespace": digest.namespace, "created_at": digest.built_at.timestamp(),
        "session_id": digest.session_id, "text": digest.text,
        "started_at": digest.started_at.timestamp(), "ended_at": digest.ended_at.timestamp(),
        "participants": digest.participants, "topics": digest.topics, "decisions": digest.decisions,
        "facts": digest.facts, "episode_ids": digest.episode_ids, "language": digest.language,
        "written_by": digest.written_by,
        "sentences": json.dumps([s.model_dump() for s in digest.sentences], ensure_ascii=False),
    }  # fmt: skip


def digest_from(node: Mapping[str, Any]) -> Digest:
    found = properties(node)
    return Digest(
        id=found["id"], namespace=found["namespace"], session_id=found["session_id"], text=found["text"],
        started_at=from_epoch(found["started_at"]), ended_at=from_epoch(found["ended_at"]),
        participants=found.get("participants", []), topics=found.get("topics", []),
        decisions=found.get("decisions", []), facts=found.get("facts", []),
        sentences=[DigestSentence(**s) for s in json.loads(found.get("sentences") or "[]")],
        episode_ids=found.get("episode_ids", []), language=found.get("language", "en"),
        built_at=from_epoch(found["created_at"]), written_by=found.get("written_by", "rules"),
    )  # fmt: skip


class CypherDigests(CypherRunner):
    """The `DigestGraph` role over `GraphStatements`."""

    _q: DigestStatements

    def sessions(self, namespace: str, now: float, session_id: str | None = None) -> list[SessionRow]:
        sid = session_node_id(namespace, session_id) if session_id is not None else ""
        rows = self._run(self._q.session_rows, {"ns": namespace, "sid": sid, "now": now})
        return sorted(
            (SessionRow(session_id=str(name), started_at=float(first), ended_at=float(last), episodes=int(count),
                        last_created_at=float(created))
             for name, first, last, count, created in rows if name is not None),
            key=lambda row: (row.started_at, row.session_id),
        )  # fmt: skip

    def session_episodes(self, namespace: str, session_id: str, now: float) -> list[Episode]:
        params = {"ns": namespace, "sid": session_node_id(namespace, session_id), "now": now}
        return [episode_from_columns(row) for row in self._run(self._q.session_episodes, params)]

    def digests(self, namespace: str, session_id: str | None = None) -> list[Digest]:
        rows = self._run(self._q.digests, {"ns": namespace, "sid": session_id or ""})
        return sorted((digest_from(node) for (node,) in rows), key=lambda d: (d.started_at, d.session_id))

    def digests_by_id(self, namespace: str, ids: Sequence[str]) -> list[Digest]:
        rows = self._run(self._q.digests_by_id, {"ns": namespace, "ids": sorted(set(ids))})
        return [digest_from(node) for (node,) in rows]

    def replace_digests(self, namespace: str, session_ids: Sequence[str], digests: Sequence[Digest]) -> None:
        plan: list[tuple[Statement, Mapping[str, Any]]] = []
        if session_ids:
            plan.append((self._q.delete_digests, {"ns": namespace, "sids": sorted(set(session_ids))}))
        if digests:
            plan.append((self._q.create_digests, {"rows": [digest_row(d) for d in digests]}))
            of = [{"a": d.id, "b": session_node_id(namespace, d.session_id)} for d in digests]
            draws = [{"a": d.id, "b": episode_id} for d in digests for episode_id in d.episode_ids]
            plan.append((self._q.digest_of, {"rows": of}))
            if draws:
                plan.append((self._q.draws_on, {"rows": draws}))
        if plan:
            self._run_all(plan)

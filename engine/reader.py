"""The façade's reading half: one episode, why it exists, an entity, analyst Cypher, a list,
counts and health. Recall is `engine/recall/recaller.py`'s."""

from __future__ import annotations

import builtins
import time
from collections.abc import Mapping
from typing import Any

from engine.analyst.query import analyst_query
from engine.arguments import flag, namespace_names, page
from engine.core import MAX_ID_CHARS, Core
from engine.errors import InvalidInput, NotFound
from engine.inputs import is_session, is_unicode_text
from engine.lookup import entity_profile, explain_episode, store_health
from engine.models import Episode, Stats, from_epoch
from engine.reflect.digests import digest_id
from engine.reflect.explain import explain_fact
from engine.stores.base import SessionRow
from engine.views import (
    CypherResult,
    Digest,
    EntityProfile,
    EpisodeExplanation,
    FactExplanation,
    Health,
    SessionView,
)
from engine.working import working_episode

__all__ = ["Reader"]


class Reader:
    """Reads of one `Memory` other than recall, over its `Core`."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def get(self, id: str, *, namespace: str = "default") -> Episode:
        """The episode with this id, in any state (deleted ones show `deleted_at`).

        An id of the shared namespace is found from every namespace.

        Raises:
            NotFound: no episode has that id in the namespace or the shared one.
        """
        return self._core.owner(id, namespace)[1]

    def explain(self, id: str, *, namespace: str = "default") -> EpisodeExplanation:
        """Why a memory exists: its entities, decisions, session neighbours, the episodes that
        share its entities, and one sentence on where it came from.

        Raises:
            NotFound: no episode has that id in the namespace or the shared one.
        """
        owner, _ = self._core.owner(id, namespace)
        return explain_episode(self._core.graph, owner, id, now=time.time(), settings=self._core.settings)

    def explain_fact(self, id: str, *, namespace: str = "default") -> FactExplanation:
        """Why the memory believes a fact (the id of a semantic card or of a profile's fact):
        the rule that read it, what that rule reads, and the sentence and the words it read in
        each episode the fact stands on.

        Raises:
            InvalidInput: the id is not a fact id.
            NotFound: no fact has that id in the namespace, or every episode it stood on is forgotten.
        """
        self._core.scope(namespace)
        if not is_unicode_text(id) or not 0 < len(id) <= MAX_ID_CHARS:
            raise InvalidInput("id", f"must be a fact id (text of 1..{MAX_ID_CHARS} characters)")
        found = self._core.graph.facts_by_id(namespace, [id], include_closed=True)
        if not found:
            raise NotFound("fact", id)
        return explain_fact(found[0], self._core.graph.get_episodes(namespace, found[0].source_episode_ids))

    def entity(
        self, name: str, *, namespace: str = "default", include_shared: bool = True
    ) -> EntityProfile:
        """Entity-aware recall: the entity with this name or alias, its aliases, active facts,
        the decisions about it and its latest episodes.

        Raises:
            InvalidInput: the name is empty.
            NotFound: no entity has that name or alias in the namespace (or the shared one).
        """
        self._core.scope(namespace)
        if not is_unicode_text(name) or not name.strip():
            raise InvalidInput("name", "must be a non-empty entity name of valid Unicode text")
        for owner in self._core.readable(namespace, include_shared):
            try:
                return entity_profile(
                    self._core.graph, owner, name, now=time.time(), settings=self._core.settings
                )
            except NotFound:
                continue
        raise NotFound("entity", name)

    def cypher(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        namespace: str = "default",
    ) -> CypherResult:
        """Run a read-only Cypher query for analysis; `$namespace` is bound to `namespace`.

        A schema procedure called alone (`CALL db.labels()`, `db.relationshipTypes`,
        `db.propertyKeys`, `db.schema.visualization`, Ladybug's `show_tables`, `table_info`,
        `show_connection`) is answered from hindsight's schema, the same in every namespace
        and on every backend. Any other query must filter on `$namespace`: every
        pattern of every clause and subquery must be tied to it (`engine.analyst.scope`, on
        Neo4j's Cypher grammar), so that no count, EXISTS or property of another namespace
        leaks; and every node it returns must belong to that namespace or the shared one.

        Raises:
            ReadOnlyViolation: the query writes, or is more than one statement.
            InvalidInput: `params` is not a JSON object of named values, names `namespace`,
                the query does not use `$namespace`, or it returned another namespace's nodes.
            InvalidInput: also when the graph cannot run the query (its syntax, an unknown
                function, label or property, arithmetic past 64 bits).
            StoreUnavailable: the graph does not answer, or the query ran out of time.

        Example:
            >>> memory.cypher("MATCH (e:Entity) WHERE e.namespace = $namespace "  # doctest: +SKIP
            ...               "RETURN e.name ORDER BY e.mention_count DESC LIMIT 5")
        """
        self._core.scope(namespace)
        return analyst_query(self._core.graph, query, params, namespace=namespace, settings=self._core.settings)

    def stats(self, *, namespace: str | None = None) -> Stats:
        """Counts of live episodes, entities, active decisions and facts."""
        self._core.check_open()
        if namespace is not None:
            self._core.scope(namespace)
        return self._core.graph.stats(namespace, time.time())

    def list(
        self,
        *,
        namespace: str = "default",
        session_id: str | None = None,
        layer: str | None = None,
        limit: int = 20,
        offset: int = 0,
        include_deleted: bool = False,
    ) -> list[Episode]:
        """Episodes newest first, optionally of one session or one layer (working, episodic, or
        semantic: the lessons an agent stated).

        Raises:
            InvalidInput: limit outside 1..1000 or offset outside 0..MAX_OFFSET, a session id
                that is no session id.
        """
        self._core.scope(namespace)
        limit, offset = page(limit, offset)
        include_deleted = flag("include_deleted", include_deleted)
        if session_id is not None and not (isinstance(session_id, str) and is_session(session_id)):
            raise InvalidInput("session_id", "must be 1-128 printable characters")
        if layer not in (None, "working", "episodic", "semantic"):
            raise InvalidInput("layer", "must be working, episodic or semantic (or None)")
        if layer == "working":
            items = self._core.writer.working.items(namespace, session_id)[::-1]  # newest first
            return [working_episode(item) for item in items][offset : offset + limit]
        return self._core.graph.list_episodes(
            namespace,
            session_id=session_id,
            layer=layer,
            limit=limit,
            offset=offset,
            include_deleted=include_deleted,
        )

    def sessions(self, *, namespace: str = "default", limit: int = 20, offset: int = 0) -> builtins.list[SessionView]:
        """The namespace's sessions, the latest first (by its latest episode), each with its
        live episode count and its digest (built by `end_session`, `reflect`, or `maintain`
        once the session is idle).

        Raises:
            InvalidInput: limit outside 1..1000 or offset outside 0..MAX_OFFSET.
        """
        self._core.scope(namespace)
        limit, offset = page(limit, offset)
        rows = sorted(self._core.graph.sessions(namespace, time.time()),
                      key=lambda r: (r.ended_at, r.session_id), reverse=True)[offset : offset + limit]  # fmt: skip
        wanted = [digest_id(namespace, row.session_id) for row in rows]
        digests = {d.session_id: d for d in self._core.graph.digests_by_id(namespace, wanted)} if rows else {}
        return [_session_view(row, digests.get(row.session_id)) for row in rows]

    def session(self, session_id: str, *, namespace: str = "default") -> SessionView:
        """One session with its digest.

        Raises:
            InvalidInput: the session id is empty.
            NotFound: the namespace holds no live episode of that session.
        """
        self._core.scope(namespace)
        if not is_unicode_text(session_id) or not session_id.strip():
            raise InvalidInput("session_id", "must be non-empty text")
        found_rows = self._core.graph.sessions(namespace, time.time(), session_id)
        if not found_rows:
            raise NotFound("session", session_id)
        row = found_rows[0]
        found = self._core.graph.digests(namespace, session_id)
        return _session_view(row, found[0] if found else None)

    def health(self, *, namespaces: builtins.list[str] | None = None) -> Health:
        """Whether both stores answer, with their counts over `namespaces` (None: every
        namespace; []: no counts, one cheap request to each store); an outage is reported in
        the answer, not raised.

        Raises:
            InvalidInput: `namespaces` is no list of namespace names.
        """
        chosen = namespace_names("namespaces", namespaces, empty=True)
        return store_health(self._core.graph, self._core.vectors, self._core.settings.backend,
                            None if chosen is None else sorted(chosen))  # fmt: skip


def _session_view(row: SessionRow, digest: Digest | None) -> SessionView:
    return SessionView(
        session_id=row.session_id, started_at=from_epoch(row.started_at), ended_at=from_epoch(row.ended_at),
        episodes=row.episodes, digest=digest,
        stale=digest is None or digest.built_at.timestamp() < row.last_created_at,
    )  # fmt: skip

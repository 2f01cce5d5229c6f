"""The graph's roles, one protocol each, and the records they pass. Pipelines and the façade
hold only these types (the vector mirror's role is in `engine.stores.vectors`, the archive's in
`engine.stores.archive`).

A backend implements a protocol and converts its driver's errors to `StoreUnavailable` at the
boundary. The graph backends share one implementation (`cypher_graph.py`) and one statement
set (`cypher_statements.py`); each supplies only its connection and dialect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, Field

from engine.models import Decision, Entity, Episode, GraphReads, Resolution, Session, Stats
from engine.views import Digest, Fact, ReflectionSummary

__all__ = [
    "CypherRows",
    "DigestGraph",
    "LifecycleRow",
    "EntityLink",
    "AnalystGraph",
    "GraphBatch",
    "GraphLookup",
    "GraphStore",
    "GraphWrites",
    "HopRows",
    "IngestGraph",
    "MaintenanceGraph",
    "NamedRows",
    "ReadAhead",
    "ReadingGraph",
    "RecallGraph",
    "ReflectionGraph",
    "SessionRow",
]


class GraphBatch(BaseModel):
    """Everything one `store`/`store_many` call writes to the graph, in one transaction.

    Entities are merged by id: an existing entity keeps its `first_seen` and gains
    `mention_count`, `last_seen` and any new aliases.
    """

    episodes: list[Episode] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    sessions: list[Session] = Field(default_factory=list)
    mentions: list[tuple[str, str, int]] = Field(default_factory=list)  # episode, entity, count
    decided: list[tuple[str, str]] = Field(default_factory=list)  # episode, decision
    about: list[tuple[str, str]] = Field(default_factory=list)  # decision, entity
    in_session: list[tuple[str, str]] = Field(default_factory=list)  # episode, session node
    next: list[tuple[str, str]] = Field(default_factory=list)  # earlier episode, later episode
    part_of: list[tuple[str, str, int]] = Field(default_factory=list)  # chunk, whole, index
    steps: list[tuple[str, str, int]] = Field(default_factory=list)  # step, task, index
    resolutions: list[Resolution] = Field(default_factory=list)  # new RESOLVED_BY edges
    # (failure, fix, recurred_by): the same error came back after that fix, in its run
    not_held: list[tuple[str, str, str]] = Field(default_factory=list)
    # newer decision, older decision: the older one's status becomes "superseded"
    supersedes: list[tuple[str, str]] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)  # new FACT edges (subject_id -> object_id)
    fact_updates: list[Fact] = Field(default_factory=list)  # reinforced: new support, confidence
    fact_closes: list[tuple[str, str, float]] = Field(default_factory=list)  # old, new, valid_to
    reflections: list[ReflectionSummary] = Field(default_factory=list)


class EntityLink(NamedTuple):
    """An episode MENTIONS an entity.

    `degree` is the entity's mention count: hubs link everything to everything. (A decision is
    ABOUT entities its own episode mentions, so links through decisions would add none.)
    A tuple, not a model: a recall reads hundreds, built by the store from typed values.
    """

    episode_id: str
    entity_id: str
    entity_name: str
    degree: int


class NamedRows(NamedTuple):
    """What recall reads of the entities a question names, in one read: the entities, the
    live episodes that mention those of them not hubs (newest first, at most the limit), and
    every fact about them, closed ones too."""

    entities: list[Entity]
    mentions: list[EntityLink]
    facts: list[Fact]


class ReadAhead(NamedTuple):
    """What a recall will read after its channels, read in one statement:
    - `episodes`: each episode id asked, and each next turn, as its live episode or None;
    - `names`: the names of the entities each live one mentions, in name order;
    - `next_turns`: each id asked it of, to the next turn of its session not deleted, or None;
    - `facts`: the active facts among the fact ids asked; `digests`: the digests among theirs."""

    episodes: dict[str, Episode | None]
    names: dict[str, list[str]]
    next_turns: dict[str, str | None]
    facts: list[Fact]
    digests: list[Digest]


class HopRows(NamedTuple):
    """One hop of graph expansion, in one read, from a frontier of episodes each with the
    ids its path already holds (`skip`):
    - `links`: the entities each live frontier episode mentions, hubs left out;
    - `facts`: the active facts about the entities reached, those a frontier episode links
      to other than through its own `skip`;
    - `mentions`: the live episodes that mention a reached entity or one an active fact
      away from one, newest first, at most the limit."""

    links: list[EntityLink]
    facts: list[Fact]
    mentions: list[EntityLink]


# How far along a session's NEXT chain `session_windows` looks, each way (fixed in the query).
SESSION_WINDOW = 3


class WindowRow(BaseModel):
    """An episode within SESSION_WINDOW steps of another along its session's NEXT chain.

    `offset` is negative before, positive after, and 0 for the episode itself; `live` is
    false for a soft-deleted one.
    """

    episode_id: str
    offset: int
    neighbour_id: str
    content: str
    live: bool


class CypherRows(BaseModel):
    """Rows of a read-only query, values as plain data (nodes as property maps with `label`)."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


class LifecycleRow(BaseModel):
    """What maintenance reads of an episode."""

    id: str
    importance: float
    occurred_at: float
    created_at: float
    last_accessed_at: float | None = None
    last_seen: float | None = None
    expires_at: float | None = None


class SessionRow(BaseModel):
    """A session of live episodes: its first and last episode times, how many it holds, and
    when the latest of them was stored (a digest built before that is stale)."""

    session_id: str
    started_at: float
    ended_at: float
    episodes: int
    last_created_at: float


class DigestGraph(Protocol):
    """The graph as session digests read and write it (`engine/reflect/digests.py`)."""

    def sessions(self, namespace: str, now: float, session_id: str | None = None) -> list[SessionRow]:
        """Every session that holds a live episode (or only `session_id`), oldest first (by
        its first episode)."""
        ...

    def session_episodes(self, namespace: str, session_id: str, now: float) -> list[Episode]:
        """The live episodes of a session (not a long episode's chunks), in session order."""
        ...

    def digests(self, namespace: str, session_id: str | None = None) -> list[Digest]:
        """The namespace's digests (of one session when given), oldest session first."""
        ...

    def digests_by_id(self, namespace: str, ids: Sequence[str]) -> list[Digest]:
        """The namespace's digests with these ids, in no particular order."""
        ...

    def replace_digests(self, namespace: str, session_ids: Sequence[str], digests: Sequence[Digest]) -> None:
        """Remove the digests of `session_ids` and write `digests`, in one transaction."""
        ...


class GraphLookup(Protocol):
    """The reads most pipelines share: episodes and entities by id or name, what episodes
    mention and decided, facts about entities, which namespaces exist, and the session
    context of episodes (keyword keys are built from it, on ingest and on repair)."""

    def session_windows(self, namespace: str, episode_ids: Sequence[str]) -> list[WindowRow]:
        """Each episode (offset 0) and the episodes up to SESSION_WINDOW steps before and
        after it along its session's NEXT chain, live or not."""
        ...

    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]:
        """Episodes by id in a namespace, in any state, in no particular order."""
        ...

    def find_entities(self, namespace: str, canonicals: Sequence[str]) -> list[Entity]:
        """Entities whose canonical name or one of whose aliases is in `canonicals`, oldest
        first (by created_at, ties by id)."""
        ...

    def entities_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Entity]]:
        """The entities each episode mentions."""
        ...

    def decisions_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Decision]]:
        """The decisions each episode made."""
        ...

    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_closed: bool, *, whole: bool = False
    ) -> list[Fact]:
        """FACT edges from or to any of the entities, most confident first: as shown
        (`Fact.shown`), or `whole` with their forgotten sources, for reflection to revise."""
        ...

    def facts_by_id(self, namespace: str, ids: Sequence[str], include_closed: bool) -> list[Fact]:
        """The namespace's FACT edges with these ids, most confident first."""
        ...

    def namespaces(self) -> list[str]:
        """Every namespace that holds an episode."""
        ...

    def resolutions(self, namespace: str, episode_ids: Sequence[str]) -> list[Resolution]:
        """The RESOLVED_BY edges from or to any of these episodes (in any state), oldest fix
        first."""
        ...


class GraphWrites(Protocol):
    """All-or-nothing writes of nodes and edges."""

    def transaction(self) -> AbstractContextManager[None]:
        """Hold the store for one all-or-nothing write: commit on exit, roll back on error.

        Raises:
            WriteFailed: the commit failed; nothing of the transaction is visible.
        """
        ...

    def write(self, batch: GraphBatch) -> None:
        """Write a batch of nodes and edges (inside `transaction()` to make it atomic)."""
        ...

    def remove_namespace(self, namespace: str) -> None:
        """Remove every node of a namespace, with its relationships, in one transaction."""
        ...


class RecallGraph(GraphLookup, DigestGraph, Protocol):
    """The graph as recall reads it (`engine/recall/`): live episodes, mentions both ways,
    the next turn of a session."""

    def live_episodes(self, namespace: str, ids: Sequence[str], now: float) -> list[Episode]:
        """Those of these episodes that are live (not deleted, archived or expired at `now`)."""
        ...

    def graph_reads(self, namespace: str) -> GraphReads:
        """How this store reads the namespace's mentions (`Trace.graph_reads`): "index" when
        an in-process index holds it or will at its next read, "statements" otherwise."""
        ...

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], now: float, limit: int
    ) -> list[EntityLink]:
        """Live episodes that mention any of the entities, newest first (at most `limit`)."""
        ...

    def entity_links(
        self, namespace: str, episode_ids: Sequence[str], now: float, max_degree: int
    ) -> list[EntityLink]:
        """The entities each live episode mentions, except hubs (degree over `max_degree`):
        the store leaves those out itself, as at scale most mentions are of hubs."""
        ...

    def next_turns(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, str]:
        """The id of the episode after each of these in its session (NEXT edge), where that
        one is not deleted."""
        ...

    def named_rows(
        self, namespace: str, canonicals: Sequence[str], now: float, max_degree: int, limit: int
    ) -> NamedRows:
        """`find_entities`, then `episodes_mentioning` of those of degree at most
        `max_degree` and `facts_about` them all (closed ones too), as one read."""
        ...

    def hop_rows(
        self, namespace: str, frontier: Mapping[str, Sequence[str]], now: float, max_degree: int, limit: int
    ) -> HopRows:
        """One hop of expansion from `frontier` (episode id -> the ids on its path), as one
        read: see `HopRows`."""
        ...

    def read_ahead(
        self, namespace: str, episode_ids: Sequence[str], next_of: Sequence[str], fact_ids: Sequence[str],
        digest_ids: Sequence[str], now: float,
    ) -> ReadAhead | None:  # fmt: skip
        """All of `ReadAhead` in one statement (the next turns of `next_of`), where a read is a
        round trip to a server; None where the store answers each read in process (recall
        then reads as it goes)."""
        ...


class IngestGraph(GraphLookup, GraphWrites, Protocol):
    """The graph as ingest writes it (`engine/ingest/`): duplicates, sessions, entities to
    resolve against, decisions a new one may supersede."""

    def touch(self, namespace: str, touches: Sequence[tuple[str, float, str]]) -> None:
        """Episodes stored again (id, when, source): `last_seen`, `access_count + 1`, the
        source appended to `sources`."""
        ...

    def last_episode_in_session(self, namespace: str, session_id: str) -> str | None:
        """The id of the latest episode of a session, to link the next one after it."""
        ...

    def find_by_hash(self, namespace: str, hashes: Sequence[str], now: float) -> dict[str, str]:
        """Live episodes by content hash: hash -> episode id."""
        ...

    def entities_with_prefix(self, namespace: str, prefixes: Sequence[str]) -> list[Entity]:
        """Entities whose canonical name starts with any of the prefixes."""
        ...

    def active_decisions(self, namespace: str, subjects: Sequence[str]) -> list[Decision]:
        """Active decisions that share a subject with `subjects`."""
        ...

    def task_steps(self, namespace: str, task_ids: Sequence[str]) -> dict[str, list[tuple[int, Episode]]]:
        """Each task's steps (in any state) with their index, in order."""
        ...

    def session_tail(self, namespace: str, session_id: str, now: float, limit: int) -> list[Episode]:
        """The latest `limit` live episodes of a session, in session order."""
        ...


class ReflectionGraph(GraphLookup, GraphWrites, Protocol):
    """The graph as reflection reads and writes it (`engine/reflect/`): where the last run
    stopped and what came after."""

    def reflection_cursor(self, namespace: str) -> tuple[float, str]:
        """Where the last reflection of the namespace stopped: the (created_at, id) of the
        last episode it read, or (0, "")."""
        ...

    def episodes_after(
        self, namespace: str, after: tuple[float, str], now: float, limit: int
    ) -> list[Episode]:
        """Live episodes after the (created_at, id) `after`, in that order."""
        ...

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], now: float, limit: int
    ) -> list[EntityLink]:
        """Live episodes that mention any of the entities (a signature's failures), newest
        first (at most `limit`)."""
        ...

    def live_episodes(self, namespace: str, ids: Sequence[str], now: float) -> list[Episode]:
        """Those of these episodes that are live."""
        ...


class ReadingGraph(RecallGraph, Protocol):
    """The graph as the façade's readers see it (`engine/lookup.py`, `Memory.list`): counts,
    session neighbours, decisions about entities, listing, access marks."""

    def stats(self, namespace: str | None, now: float) -> Stats:
        """Counts of live episodes, entities, decisions and active facts."""
        ...

    def session_neighbours(
        self, namespace: str, episode_id: str
    ) -> tuple[Episode | None, Episode | None]:
        """The episodes just before and just after this one in its session (NEXT edges)."""
        ...

    def decisions_about(
        self, namespace: str, entity_ids: Sequence[str], limit: int
    ) -> list[Decision]:
        """Decisions about any of the entities, newest first."""
        ...

    def list_episodes(
        self,
        namespace: str,
        *,
        session_id: str | None,
        limit: int,
        offset: int,
        include_deleted: bool,
        layer: str | None = None,
    ) -> list[Episode]:
        """Episodes newest first (by occurred_at)."""
        ...

    def mark_accessed(self, namespace: str, ids: Sequence[str], at: float) -> None:
        """Recall returned these episodes: `last_accessed_at` and `access_count + 1`."""
        ...


class MaintenanceGraph(GraphLookup, GraphWrites, DigestGraph, Protocol):
    """The graph as forgetting, repair and backup maintain it (`engine/lifecycle/forget.py`,
    `engine/lifecycle/doctor.py`, `engine/lifecycle/backup.py`, `engine/keyword_keys.py`, the lifecycle)."""


    def episode_states(self) -> dict[str, tuple[str, bool]]:
        """Every episode of every namespace: id -> (namespace, soft-deleted)."""
        ...

    def soft_delete(self, namespace: str, episode_id: str, at: float) -> bool:
        """Set `deleted_at`; False when no live episode has that id."""
        ...

    def restore(self, namespace: str, episode_id: str) -> bool:
        """Clear `deleted_at`; False when no soft-deleted episode has that id."""
        ...

    def rejoin_session(self, namespace: str, episode_id: str, session_id: str) -> None:
        """Put an episode that came back (from the archive) into its session's NEXT chain:
        after the latest episode before it in time, ahead of the one that follows that.
        Nothing happens when it is on the chain already or not in the session."""
        ...

    def recent_episode_ids(
        self, namespace: str, session_id: str | None, now: float, limit: int
    ) -> list[str]:
        """The latest live episodes, newest first."""
        ...

    def merge_entities(self, namespace: str, keep_id: str, absorb_id: str) -> Entity:
        """Fold entity `absorb_id` into `keep_id`: its mentions, decisions and facts move, its
        name and aliases become aliases, counts add up; the absorbed node is removed."""
        ...

    def add_alias(self, namespace: str, entity_id: str, alias: str) -> Entity:
        """Add a canonical alias to an entity."""
        ...

    def lifecycle_rows(self, namespace: str) -> list[LifecycleRow]:
        """Every episode that is not soft-deleted, with what maintenance decides on."""
        ...

    def import_records(self, records: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Write what `export_records` produced, in one transaction."""
        ...

    def export_records(self) -> list[tuple[str, dict[str, Any]]]:
        """Every node and relationship as (kind, record): kind is a label, or "rel:TYPE" with
        `src`, `dst` and the relationship's properties."""
        ...

    def delete_episodes(self, namespace: str, ids: Sequence[str]) -> list[str]:
        """Remove episodes for good, with the decisions only they made; entity mention counts
        drop, and their session's NEXT chain closes over them (the episode before a removed
        run links to the one after it). Returns the ids of the decisions removed."""
        ...

    def facts_citing(self, namespace: str, episode_ids: Sequence[str]) -> list[Fact]:
        """Every fact, closed ones too, with any of these episodes among its sources."""
        ...

    def revise_facts(self, namespace: str, revised: Sequence[Fact], removed: Sequence[str]) -> list[str]:
        """In one transaction: write the revised facts' support, statement, confidence,
        sources, first time and time named; delete the `removed` facts, reopening the facts
        they had closed. Returns the ids of the facts reopened."""
        ...

    def mark_forgotten_sources(self, namespace: str, facts: Sequence[Fact]) -> None:
        """Write each fact's `forgotten_ids` and `quote_forgotten` (a forget or a restore of
        one of its sources)."""
        ...

    def prune_entities(self, namespace: str, entity_ids: Sequence[str]) -> None:
        """Delete those of these entities nothing refers to any more: no episode mentions
        them, and no fact or decision names them."""
        ...

    def drop_entities(self, namespace: str, entity_ids: Sequence[str], entity_type: str) -> None:
        """Delete these entities of `entity_type` with every edge they have: derived ones
        (a lesson's FIX) that are derived again from what is left."""
        ...

    def decision_links(self, namespace: str, decision_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(decision id, entity id) ABOUT pairs."""
        ...

    def active_facts(self, namespace: str) -> list[Fact]:
        """Every FACT edge of the namespace that is not closed (the fact points mirror them)."""
        ...


class AnalystGraph(Protocol):
    """The graph as analysts query it (`engine/analyst/query.py`)."""

    def read_cypher(
        self, query: str, params: Mapping[str, Any], max_rows: int, timeout_ms: int
    ) -> CypherRows:
        """Run one analyst query in a read-only transaction, at most `max_rows` rows.

        The caller has checked the text (`engine.analyst.guard`); the store refuses writes too.
        """
        ...


class GraphStore(
    ReadingGraph, IngestGraph, ReflectionGraph, MaintenanceGraph, AnalystGraph, Protocol
):
    """The graph: source of truth for episodes, entities, decisions and sessions.

    Every read takes a namespace and returns only that namespace's records; "live" means not
    deleted, not archived and not expired at `now`. One backend class implements every role;
    each pipeline is typed against the narrow role it uses.
    """

    def close(self) -> None: ...

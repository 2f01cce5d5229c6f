"""Read views the façade returns besides cards: explanations, entity profiles, facts, Cypher rows.

Like `engine.models`, these are the typed boundary the MCP server, the CLI and the notebooks
share; they hold no behaviour.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.models import Decision, Entity, Episode, Resolution

__all__ = [
    "BackupSummary",
    "CypherResult",
    "Digest",
    "DigestSentence",
    "EntityProfile",
    "EpisodeExplanation",
    "Fact",
    "FactExplanation",
    "FactSource",
    "Health",
    "LESSON_RULES",
    "Neighbour",
    "ReflectionSummary",
    "SessionView",
]


# The rules of a lesson: one reflection builds from an agent's failures and fixes, or one the
# agent stated (`engine.reflect.lessons`).
LESSON_RULES = frozenset({"lesson", "stated lesson"})


class Fact(BaseModel):
    """A semantic fact: a FACT edge between two entities, written by reflection.

    `valid_to` is set when newer, stronger evidence contradicted it; it is kept, not deleted.
    """

    id: str = ""
    subject: str
    subject_id: str = ""
    predicate: str
    negated: bool = False
    object: str
    object_id: str = ""
    statement: str
    confidence: float
    support: int
    valid_from: float
    valid_to: float | None = None
    invalidated_by: str | None = None
    refers_to: float | None = None  # the time the statement names ("last year"), epoch seconds
    reflection_id: str | None = None
    source_episode_ids: list[str] = Field(default_factory=list)
    forgotten_ids: list[str] = Field(default_factory=list)  # sources forgotten now, restorable
    quote_forgotten: bool = False  # the statement (a lesson: its fix) is only a forgotten source's
    # The rule that made it: a statement rule ("en.clause", "zh.favourite"; "statement" before
    # rules were named), "llm", "decision", "lesson" (an agent's failures and fixes), "stated
    # lesson" (a lesson the agent stored).
    rule: str | None = None

    def shown(self) -> Fact | None:
        """The fact as recall, profiles and fact points show it while some of its sources are
        forgotten: it stands on the others (None when there are none), without their count,
        and without its statement when that is only a forgotten source's.

        >>> fact = Fact(subject="Sam", predicate="works_at", object="Google", statement="I work at Google.",
        ...             confidence=0.5, support=2, valid_from=0, refers_to=5.0, source_episode_ids=["a", "b"])
        >>> fact.shown() == fact
        True
        >>> told = fact.model_copy(update={"forgotten_ids": ["a"], "quote_forgotten": True}).shown()
        >>> told.source_episode_ids, told.support, told.statement, told.refers_to
        (['b'], 1, '', None)
        >>> fact.model_copy(update={"forgotten_ids": ["a", "b"]}).shown() is None
        True
        """
        forgotten = set(self.forgotten_ids) & set(self.source_episode_ids)
        if not forgotten:
            return self
        left = [i for i in self.source_episode_ids if i not in forgotten]
        if not left:
            return None
        update: dict[str, object] = {"source_episode_ids": left, "support": max(1, self.support - len(forgotten))}
        if self.quote_forgotten:
            if self.rule in LESSON_RULES:
                return None  # its fix is only a forgotten step's: the failures left teach nothing
            update.update(statement="", refers_to=None)
        return self.model_copy(update=update)


class Neighbour(BaseModel):
    """An episode next to another: before or after it in its session, or sharing an entity."""

    id: str
    relation: Literal["previous", "next", "shares_entity"]
    via: str | None = None  # the shared entity's name
    summary: str
    occurred_at: datetime


class EpisodeExplanation(BaseModel):
    """Everything the graph knows about one episode, and why it exists."""

    episode: Episode
    entities: list[Entity]
    decisions: list[Decision]
    neighbours: list[Neighbour]
    why: str  # one sentence: what it is, who said it, when, how important, where it came from
    # A failure's fix, or the failures a fix got past (RESOLVED_BY), and whether each held.
    resolutions: list[Resolution] = Field(default_factory=list)


class FactSource(BaseModel):
    """One episode a fact stands on (a forgotten one is not shown), and what the fact's rule read there."""

    episode_id: str
    said: str = ""  # the sentence the rule read, as the episode has it ("" when it is not read again)
    # The words of that sentence the rule took, as written: its subject, the words that carry
    # the predicate where the rule knows them ("plan visit", "想去"), and its object.
    words: list[str] = Field(default_factory=list)


class FactExplanation(BaseModel):
    """Why the memory believes a fact: the rule that read it and what the rule read, source by source."""

    fact: Fact
    rule: str
    rule_about: str  # what the rule reads (`engine/rules/statements.toml`)
    sources: list[FactSource]
    why: str  # one sentence: the fact, the rule, how many episodes hold it, how sure, whether it still holds


class EntityProfile(BaseModel):
    """Entity-aware recall: the entity, its aliases, facts, decisions and latest episodes.

    `facts` are the current ones, grouped by predicate (the group of the best-supported fact
    first), each group by support then recency; `closed_facts` were replaced or reversed,
    newest first, with their `valid_from` and `valid_to`; `lessons` are what was learned from
    the errors its episodes show (`engine.reflect.lessons`); `summary` is the entity's own current
    facts in one line for a prompt ("Caroline: researching adoption agencies (May 2023); ..."),
    the best of each predicate before the second of any.
    """

    entity: Entity
    facts: list[Fact]
    decisions: list[Decision]
    latest_episodes: list[Episode]
    closed_facts: list[Fact] = Field(default_factory=list)
    summary: str = ""
    # The current lessons of the errors its latest episodes show (a service's, a tool's).
    lessons: list[Fact] = Field(default_factory=list)


class DigestSentence(BaseModel):
    """A central sentence of a session, as its digest shows it."""

    episode_id: str
    speaker: str | None = None
    text: str


class Digest(BaseModel):
    """What a session was about, built from its live episodes (`engine/reflect/digest.py`).

    `text` is the digest in one short paragraph (its time, people, topics, decisions and
    central sentences); `episode_ids` every live episode it was built from, in session order.
    """

    id: str
    namespace: str
    session_id: str
    text: str
    started_at: datetime
    ended_at: datetime
    participants: list[str]
    topics: list[str]
    decisions: list[str]
    facts: list[str]
    sentences: list[DigestSentence]
    episode_ids: list[str]
    language: Literal["en", "zh"]
    built_at: datetime
    # "rules": the extractive digest; "llm": the configured LLM wrote the summary after the head.
    written_by: Literal["rules", "llm"] = "rules"


class SessionView(BaseModel):
    """A session as `Memory.sessions` lists it: when it ran, how many live episodes it
    holds, and its digest (None until one is built: `end_session`, `reflect`, idle time)."""

    session_id: str
    started_at: datetime
    ended_at: datetime
    episodes: int
    digest: Digest | None = None
    # The digest was built before the session's latest episodes: `reflect` rebuilds it.
    stale: bool = False


class CypherResult(BaseModel):
    """Rows of a read-only Cypher query. Nodes and relationships come back as property maps."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = False  # more rows existed than `settings.cypher_max_rows`


class ReflectionSummary(BaseModel):
    """One reflection run: what it read and what it changed (also a Reflection node)."""

    id: str
    namespace: str
    ran_at: float
    episodes_seen: int
    clusters: int  # the error signatures whose failures it grouped into lessons
    facts_written: int
    facts_reinforced: int
    facts_closed: int
    until: float  # created_at of the last episode read; the next run starts after it
    until_id: str = ""  # and its id: episodes of one store_many share their created_at
    status: Literal["done", "nothing_new"] = "done"


class Health(BaseModel):
    """What `/health` reports: whether both stores answer, and how much they hold."""

    status: Literal["ok", "degraded"]
    backend: str
    graph: Literal["ok", "unreachable"]
    vectors: Literal["ok", "unreachable"]
    episodes: int | None = None
    vector_points: int | None = None
    detail: str | None = None


class BackupSummary(BaseModel):
    """What an export wrote or an import read."""

    nodes: int
    relationships: int
    archived: int
    vectors: int

    @classmethod
    def of_kinds(cls, kinds: Iterable[str]) -> BackupSummary:
        """The counts of an export's lines, given the `kind` of each (the header's too).

        >>> BackupSummary.of_kinds(["header", "Episode", "rel:MENTIONS", "Entity", "vector"])
        BackupSummary(nodes=2, relationships=1, archived=0, vectors=1)
        """
        tally = Counter(kind if kind in ("header", "archive", "vector") else
                        "rel" if kind.startswith("rel:") else "node" for kind in kinds)  # fmt: skip
        return cls(nodes=tally["node"], relationships=tally["rel"], archived=tally["archive"],
                   vectors=tally["vector"])  # fmt: skip

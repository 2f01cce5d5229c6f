"""Node labels and relationship types of the memory graph, with typed properties.

Property types are the portable subset both Ladybug and Neo4j hold: STRING, DOUBLE, INT64,
BOOLEAN and STRING[] (a list of strings). Structured values (metadata, numbers) are JSON strings.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 8  # 2: Episode.related_ids; 3: Episode.last_seen, sources; Decision.subjects;
# 4: FACT.id, negated; Reflection counts; 5: FACT.refers_to, Reflection.until_id; 6: Digest;
# 7: FACT.forgotten_ids, quote_forgotten; 8: Episode.outcome, RESOLVED_BY, STEP_OF, FACT.rule

# The version node every backend keeps, so that a later change can migrate.
VERSION_READ = "MATCH (v:SchemaVersion {id: 'graph'}) RETURN v.version"
VERSION_WRITE = "MERGE (v:SchemaVersion {id: 'graph'}) SET v.version = $version"

PropType = str  # one of STRING, DOUBLE, INT64, BOOLEAN, STRING[]


@dataclass(frozen=True)
class NodeType:
    label: str
    properties: tuple[tuple[str, PropType], ...]


@dataclass(frozen=True)
class RelType:
    name: str
    source: str
    target: str
    properties: tuple[tuple[str, PropType], ...] = ()


# Every node has id (primary key), namespace and created_at.
_COMMON: tuple[tuple[str, PropType], ...] = (
    ("id", "STRING"),
    ("namespace", "STRING"),
    ("created_at", "DOUBLE"),
)

EPISODE = NodeType(
    "Episode",
    _COMMON
    + (
        ("content", "STRING"),
        ("summary", "STRING"),
        ("kind", "STRING"),
        ("session_id", "STRING"),
        ("role", "STRING"),
        ("agent", "STRING"),
        ("importance", "DOUBLE"),
        ("layer", "STRING"),
        ("token_count", "INT64"),
        ("content_hash", "STRING"),
        ("occurred_at", "DOUBLE"),
        ("last_accessed_at", "DOUBLE"),
        ("access_count", "INT64"),
        ("expires_at", "DOUBLE"),
        ("deleted_at", "DOUBLE"),
        ("archived_at", "DOUBLE"),
        ("redactions", "INT64"),
        ("metadata", "STRING"),  # JSON object
        ("numbers", "STRING"),  # JSON list of NumberMention
        ("todos", "STRING[]"),
        ("related_ids", "STRING[]"),
        ("last_seen", "DOUBLE"),  # last time this content was stored again (dedup)
        ("sources", "STRING[]"),  # where the content came from, one entry per store
        ("outcome", "STRING"),  # a tool call's or task's: success or failure (NULL: none given)
    ),
)

ENTITY = NodeType(
    "Entity",
    _COMMON
    + (
        ("name", "STRING"),
        ("canonical", "STRING"),
        ("type", "STRING"),
        ("aliases", "STRING[]"),
        ("first_seen", "DOUBLE"),
        ("last_seen", "DOUBLE"),
        ("mention_count", "INT64"),
    ),
)

DECISION = NodeType(
    "Decision",
    _COMMON
    + (
        ("text", "STRING"),
        ("status", "STRING"),
        ("decided_at", "DOUBLE"),
        # What the decision is about ("entity:<id>", "topic:budget"): a later active decision
        # on one of the same subjects, and similar enough, supersedes it.
        ("subjects", "STRING[]"),
    ),
)

SESSION = NodeType("Session", _COMMON + (("name", "STRING"), ("started_at", "DOUBLE")))

REFLECTION = NodeType(
    "Reflection",
    _COMMON
    + (
        ("ran_at", "DOUBLE"),
        ("episodes_seen", "INT64"),
        ("clusters", "INT64"),
        ("facts_written", "INT64"),
        ("facts_reinforced", "INT64"),
        ("facts_closed", "INT64"),
        ("until", "DOUBLE"),  # created_at of the last episode this run read
        ("until_id", "STRING"),  # and its id, since a store_many's episodes share created_at
    ),
)

# A session's digest (engine/reflect/digest.py): rebuilt from the session's live episodes
# whenever they change, so it never holds the text of a forgotten one.
DIGEST = NodeType(
    "Digest",
    _COMMON
    + (
        ("session_id", "STRING"),  # the caller's session id (Session.name)
        ("text", "STRING"),
        ("started_at", "DOUBLE"),
        ("ended_at", "DOUBLE"),
        ("participants", "STRING[]"),
        ("topics", "STRING[]"),
        ("decisions", "STRING[]"),
        ("facts", "STRING[]"),
        ("sentences", "STRING"),  # JSON list of the central sentences: episode_id, speaker, text
        ("episode_ids", "STRING[]"),  # every live episode it was built from, in session order
        ("language", "STRING"),
        ("written_by", "STRING"),  # rules or llm
    ),
)

NODES: tuple[NodeType, ...] = (EPISODE, ENTITY, DECISION, SESSION, REFLECTION, DIGEST)

RELATIONSHIPS: tuple[RelType, ...] = (
    RelType("MENTIONS", "Episode", "Entity", (("count", "INT64"),)),
    RelType("DECIDED", "Episode", "Decision"),
    RelType("ABOUT", "Decision", "Entity"),
    RelType("SUPERSEDES", "Decision", "Decision"),
    RelType("IN_SESSION", "Episode", "Session"),
    RelType("NEXT", "Episode", "Episode"),
    RelType("PART_OF", "Episode", "Episode", (("index", "INT64"),)),
    # A step of a task run, in order (`Memory.store_task`).
    RelType("STEP_OF", "Episode", "Episode", (("index", "INT64"),)),
    # A failure and the step that fixed it (engine/ingest/resolutions.py).
    RelType(
        "RESOLVED_BY",
        "Episode",
        "Episode",
        (
            ("at", "DOUBLE"),  # when the fix was made
            ("derived_by", "STRING"),  # caller: named by the fix's `resolves`; run: found in the run
            ("confirmed_by", "STRING"),  # the later step that showed the fix got past it, if another
            ("held", "BOOLEAN"),  # false once the same error came back after it in the run
            ("recurred_by", "STRING"),  # the failure that showed it did not hold
        ),
    ),
    RelType("DIGEST_OF", "Digest", "Session"),
    RelType("DRAWS_ON", "Digest", "Episode"),
    RelType(
        "FACT",
        "Entity",
        "Entity",
        (
            ("id", "STRING"),
            ("predicate", "STRING"),
            ("negated", "BOOLEAN"),
            ("statement", "STRING"),
            ("confidence", "DOUBLE"),
            ("support", "INT64"),
            ("valid_from", "DOUBLE"),
            ("valid_to", "DOUBLE"),
            ("refers_to", "DOUBLE"),  # the time the statement names ("last year"), if any
            ("source_episode_ids", "STRING[]"),
            ("reflection_id", "STRING"),
            ("invalidated_by", "STRING"),
            # Sources forgotten now (restorable), and whether the statement is theirs alone:
            # what a forgotten episode said is not shown through a fact (`Fact.shown`).
            ("forgotten_ids", "STRING[]"),
            ("quote_forgotten", "BOOLEAN"),
            # The rule that made it: "statement", "decision", "llm", "lesson", "stated lesson".
            ("rule", "STRING"),
        ),
    ),
)

# The properties that hold a moment, as epoch seconds (DOUBLE): a table a person reads shows
# them as ISO 8601 (`hindsight cypher`), never as 1788346440.0.
TIME_PROPERTIES = frozenset(
    {"created_at", "occurred_at", "last_accessed_at", "expires_at", "deleted_at", "archived_at",
     "last_seen", "first_seen", "decided_at", "started_at", "ended_at", "ran_at", "until",
     "valid_from", "valid_to", "refers_to", "at"}  # fmt: skip
)

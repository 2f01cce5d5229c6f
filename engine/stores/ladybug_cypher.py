"""The Cypher the Ladybug graph store runs, as constants. `ladybug_graph.py` runs them.

Writes are `UNWIND $rows` batches; every SET casts explicitly, because a column that is NULL
in every row of an UNWIND is typed STRING.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph_schema.definitions import EPISODE

LIVE = (
    "{v}.deleted_at IS NULL AND {v}.archived_at IS NULL "
    "AND ({v}.expires_at IS NULL OR {v}.expires_at > $now)"
)
LIVE_EP = LIVE.format(v="ep")


def set_clause(var: str, properties: Sequence[tuple[str, str]]) -> str:
    """SET with explicit casts: a column that is NULL in every row would be typed STRING."""
    return ", ".join(
        f"{var}.`{name}` = r.`{name}`" if kind == "STRING" else f"{var}.`{name}` = CAST(r.`{name}` AS {kind})"
        for name, kind in properties
        if name != "id"
    )


CREATE_EPISODES = "UNWIND $rows AS r CREATE (n:Episode {id: r.id}) SET " + set_clause(
    "n", EPISODE.properties
)
MERGE_ENTITIES = (
    "UNWIND $rows AS r MERGE (n:Entity {id: r.id}) "
    "ON CREATE SET n.namespace = r.namespace, n.created_at = r.created_at, n.name = r.name, "
    "n.canonical = r.canonical, n.type = r.type, n.aliases = r.aliases, "
    "n.first_seen = r.first_seen, n.last_seen = r.last_seen, n.mention_count = r.mention_count "
    "ON MATCH SET n.mention_count = n.mention_count + r.mention_count, "
    "n.aliases = list_distinct(list_concat(coalesce(n.aliases, CAST([] AS STRING[])), r.aliases)), "
    "n.last_seen = CASE WHEN r.last_seen > n.last_seen THEN r.last_seen ELSE n.last_seen END, "
    "n.first_seen = CASE WHEN r.first_seen < n.first_seen THEN r.first_seen ELSE n.first_seen END"
)
CREATE_DECISIONS = (
    "UNWIND $rows AS r CREATE (n:Decision {id: r.id}) SET n.namespace = r.namespace, "
    "n.created_at = r.created_at, n.text = r.text, n.status = r.status, "
    "n.decided_at = r.decided_at, n.subjects = r.subjects"
)
SUPERSEDE = "UNWIND $rows AS r MATCH (d:Decision {id: r.b}) SET d.status = 'superseded'"
MERGE_SESSIONS = (
    "UNWIND $rows AS r MERGE (n:Session {id: r.id}) ON CREATE SET n.namespace = r.namespace, "
    "n.created_at = r.created_at, n.name = r.name, n.started_at = r.started_at"
)
# Separate MATCH clauses: a joint `MATCH (a), (b)` after UNWIND is pathologically slow here.
LINK = "UNWIND $rows AS r MATCH (a:{src} {{id: r.a}}) MATCH (b:{dst} {{id: r.b}}) CREATE (a)-[:{rel}{props}]->(b)"
LINKS: dict[str, str] = {
    "mentions": LINK.format(src="Episode", dst="Entity", rel="MENTIONS", props=" {count: r.n}"),
    "decided": LINK.format(src="Episode", dst="Decision", rel="DECIDED", props=""),
    "about": LINK.format(src="Decision", dst="Entity", rel="ABOUT", props=""),
    "in_session": LINK.format(src="Episode", dst="Session", rel="IN_SESSION", props=""),
    "next": LINK.format(src="Episode", dst="Episode", rel="NEXT", props=""),
    "part_of": LINK.format(src="Episode", dst="Episode", rel="PART_OF", props=" {`index`: r.n}"),
    "supersedes": LINK.format(src="Decision", dst="Decision", rel="SUPERSEDES", props=""),
}


FACT_PROPS = (
    "id: r.id, predicate: r.predicate, negated: r.negated, statement: r.statement, "
    "confidence: r.confidence, support: r.support, valid_from: r.valid_from, "
    "source_episode_ids: r.source_episode_ids, reflection_id: r.reflection_id"
)
CREATE_FACTS = (
    "UNWIND $rows AS r MATCH (a:Entity {id: r.subject_id}) MATCH (b:Entity {id: r.object_id}) "
    "CREATE (a)-[:FACT {" + FACT_PROPS + "}]->(b)"
)
UPDATE_FACTS = (
    "UNWIND $rows AS r MATCH (:Entity)-[f:FACT]->(:Entity) WHERE f.id = r.id SET "
    "f.confidence = r.confidence, f.support = r.support, f.statement = r.statement, "
    "f.source_episode_ids = r.source_episode_ids"
)
CLOSE_FACTS = (
    "UNWIND $rows AS r MATCH (:Entity)-[f:FACT]->(:Entity) WHERE f.id = r.old SET "
    "f.valid_to = r.at, f.invalidated_by = r.new"
)
CREATE_REFLECTIONS = (
    "UNWIND $rows AS r CREATE (n:Reflection {id: r.id}) SET n.namespace = r.namespace, "
    "n.created_at = r.ran_at, n.ran_at = r.ran_at, n.episodes_seen = r.episodes_seen, "
    "n.clusters = r.clusters, n.facts_written = r.facts_written, "
    "n.facts_reinforced = r.facts_reinforced, n.facts_closed = r.facts_closed, n.until = r.until"
)


# Entity merge: move every edge of $absorb to $keep (without doubling one that exists), fold
# names and counts, then remove the absorbed node.
MERGE_STATEMENTS = (
    "MATCH (ep:Episode)-[m:MENTIONS]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
    "WHERE NOT EXISTS { MATCH (ep)-[:MENTIONS]->(a) } CREATE (ep)-[:MENTIONS {count: m.count}]->(a)",
    "MATCH (d:Decision)-[:ABOUT]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
    "WHERE NOT EXISTS { MATCH (d)-[:ABOUT]->(a) } CREATE (d)-[:ABOUT]->(a)",
    "MATCH (b:Entity {id: $absorb})-[f:FACT]->(o:Entity) MATCH (a:Entity {id: $keep}) "
    "CREATE (a)-[:FACT {predicate: f.predicate, statement: f.statement, confidence: "
    "f.confidence, support: f.support, valid_from: f.valid_from, valid_to: f.valid_to, "
    "source_episode_ids: f.source_episode_ids, reflection_id: f.reflection_id, "
    "invalidated_by: f.invalidated_by}]->(o)",
    "MATCH (o:Entity)-[f:FACT]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
    "CREATE (o)-[:FACT {predicate: f.predicate, statement: f.statement, confidence: "
    "f.confidence, support: f.support, valid_from: f.valid_from, valid_to: f.valid_to, "
    "source_episode_ids: f.source_episode_ids, reflection_id: f.reflection_id, "
    "invalidated_by: f.invalidated_by}]->(a)",
    "MATCH (a:Entity {id: $keep}), (b:Entity {id: $absorb}) SET "
    "a.aliases = list_distinct(list_concat(list_concat(coalesce(a.aliases, CAST([] AS STRING[])), "
    "coalesce(b.aliases, CAST([] AS STRING[]))), [b.canonical])), "
    "a.mention_count = a.mention_count + b.mention_count, "
    "a.first_seen = CASE WHEN b.first_seen < a.first_seen THEN b.first_seen ELSE a.first_seen END, "
    "a.last_seen = CASE WHEN b.last_seen > a.last_seen THEN b.last_seen ELSE a.last_seen END",
    "MATCH (b:Entity {id: $absorb}) DETACH DELETE b",
)

# Episodes and the entities they reach, directly (MENTIONS) or through a decision (DECIDED,
# ABOUT), in one round trip; {where} selects the episodes or the entities, {tail} orders/limits.
ENTITY_PATHS = (
    "MATCH (ep:Episode)-[:MENTIONS]->(en:Entity) WHERE {where} AND ep.namespace = $ns AND "
    + LIVE_EP
    + " RETURN ep.id, en.id, en.name, CAST(NULL AS STRING) AS decision, en.mention_count, "
    "ep.occurred_at {tail} UNION ALL "
    "MATCH (ep:Episode)-[:DECIDED]->(d:Decision)-[:ABOUT]->(en:Entity) WHERE {where} AND "
    "ep.namespace = $ns AND " + LIVE_EP
    + " RETURN ep.id, en.id, en.name, d.id AS decision, en.mention_count, ep.occurred_at {tail}"
)

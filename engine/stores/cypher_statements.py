"""Every Cypher statement the graph stores run, written once and rendered per dialect.

A `Statement` carries its text and the parameters it takes: the stores refuse to run it with
any other set (`Statement.check`), and CI lints the Neo4j rendering of every statement here
with Neo4j's own linter, declaring exactly those parameters (tests/test_cypher_lint.py).

Writes are `UNWIND $rows` batches. Optional filters take '' for "any" rather than NULL,
because Ladybug types a NULL parameter as BOOLEAN.
"""

from __future__ import annotations

from engine.stores.base import SESSION_WINDOW
from engine.stores.cypher_admin_statements import AdminStatements
from engine.stores.cypher_dialect import Dialect
from engine.stores.cypher_digests import DigestStatements
from engine.stores.cypher_parts import (
    EPISODES_BY_ID,
    FACT_COLUMNS,
    FACT_ORDER,
    episode_columns,
    from_episodes,
    live_condition,
    statement,
)
from engine.stores.cypher_work import WorkStatements
from graph_schema.definitions import (
    DECISION,
    ENTITY,
    EPISODE,
    SESSION,
    VERSION_WRITE,
)

__all__ = ["GraphStatements"]


def _session_windows() -> str:
    """Each episode and its NEXT chain SESSION_WINDOW steps each way, as one wide row:
    `i`, then (id, content, live) for offsets 0, 1..W, -1..-W (NULL past the chain's end).

    One OPTIONAL MATCH per step, not `NEXT*1..W`: Ladybug walks out of each episode then,
    where the variable-length pattern joined against a scan (25 -> 5 ms for 30 episodes at
    35k). The chain stops at the namespace's edge.
    """
    steps = [EPISODES_BY_ID]
    columns = ["i", "ep.id", "ep.content", "ep.deleted_at IS NULL"]
    for name, arrow in (("a", "({prev})-[:NEXT]->({node}:Episode)"),
                        ("b", "({node}:Episode)-[:NEXT]->({prev})")):  # fmt: skip
        prev = "ep"
        for step in range(1, SESSION_WINDOW + 1):
            node = f"{name}{step}"
            steps.append(f"OPTIONAL MATCH {arrow.format(prev=prev, node=node)} "
                         f"WHERE {node}.namespace = $ns")  # fmt: skip
            columns += [f"{node}.id", f"{node}.content", f"{node}.deleted_at IS NULL"]
            prev = node
    return " ".join(steps) + " RETURN " + ", ".join(columns)


class GraphStatements(AdminStatements, DigestStatements, WorkStatements):
    """All statements of the graph protocol in one dialect (attributes, dicts of statements)."""

    def __init__(self, d: Dialect) -> None:
        super().__init__(d)
        live = live_condition("ep")
        # -- batch writes -------------------------------------------------------------------
        self.create_episodes = statement(
            "UNWIND $rows AS r CREATE (n:Episode {id: r.id}) SET " + self.set_clause(EPISODE.properties),
            "rows",
        )
        empty = d.empty_strings()
        self.merge_entities = statement(
            "UNWIND $rows AS r MERGE (n:Entity {id: r.id}) ON CREATE SET "
            + self.set_clause(ENTITY.properties)
            + " ON MATCH SET n.mention_count = n.mention_count + r.mention_count, "
            f"n.aliases = {d.union(f'coalesce(n.aliases, {empty})', 'r.aliases')}, "
            "n.last_seen = CASE WHEN r.last_seen > n.last_seen THEN r.last_seen ELSE n.last_seen END, "
            "n.first_seen = CASE WHEN r.first_seen < n.first_seen THEN r.first_seen ELSE n.first_seen END",
            "rows",
        )
        self.create_decisions = statement(
            "UNWIND $rows AS r CREATE (n:Decision {id: r.id}) SET " + self.set_clause(DECISION.properties),
            "rows",
        )
        self.supersede = statement(
            "UNWIND $rows AS r MATCH (d:Decision {id: r.b}) SET d.status = 'superseded'", "rows"
        )
        self.merge_sessions = statement(
            "UNWIND $rows AS r MERGE (n:Session {id: r.id}) ON CREATE SET "
            + self.set_clause(SESSION.properties),
            "rows",
        )
        # Separate MATCH clauses: a joint `MATCH (a), (b)` after UNWIND is slow on Ladybug.
        link = "UNWIND $rows AS r MATCH (a:{src} {{id: r.a}}) MATCH (b:{dst} {{id: r.b}}) CREATE (a)-[:{rel}{props}]->(b)"
        self.links = {
            name: statement(link.format(src=src, dst=dst, rel=rel, props=props), "rows")
            for name, src, dst, rel, props in (
                ("mentions", "Episode", "Entity", "MENTIONS", " {count: r.n}"),
                ("decided", "Episode", "Decision", "DECIDED", ""),
                ("about", "Decision", "Entity", "ABOUT", ""),
                ("in_session", "Episode", "Session", "IN_SESSION", ""),
                ("next", "Episode", "Episode", "NEXT", ""),
                ("part_of", "Episode", "Episode", "PART_OF", " {`index`: r.n}"),
                ("supersedes", "Decision", "Decision", "SUPERSEDES", ""),
            )
        }
        fact_props = (
            "id: r.id, predicate: r.predicate, negated: r.negated, statement: r.statement, "
            "confidence: r.confidence, support: r.support, valid_from: r.valid_from, "
            f"refers_to: {d.cast('r.refers_to', 'DOUBLE')}, source_episode_ids: r.source_episode_ids, reflection_id: r.reflection_id, "
            "rule: r.rule"
        )
        self.create_facts = statement(
            "UNWIND $rows AS r MATCH (a:Entity {id: r.subject_id}) MATCH (b:Entity {id: r.object_id}) "
            "CREATE (a)-[:FACT {" + fact_props + "}]->(b)",
            "rows",
        )
        self.update_facts = statement(
            "UNWIND $rows AS r MATCH (:Entity)-[f:FACT]->(:Entity) WHERE f.id = r.id SET "
            "f.confidence = r.confidence, f.support = r.support, f.statement = r.statement, "
            "f.source_episode_ids = r.source_episode_ids, f.quote_forgotten = false, f.rule = r.rule",
            "rows",
        )
        self.close_facts = statement(
            "UNWIND $rows AS r MATCH (:Entity)-[f:FACT]->(:Entity) WHERE f.id = r.old SET "
            "f.valid_to = r.at, f.invalidated_by = r.new",
            "rows",
        )
        self.create_reflections = statement(
            "UNWIND $rows AS r CREATE (n:Reflection {id: r.id}) SET n.namespace = r.namespace, "
            "n.created_at = r.ran_at, n.ran_at = r.ran_at, n.episodes_seen = r.episodes_seen, "
            "n.clusters = r.clusters, n.facts_written = r.facts_written, "
            "n.facts_reinforced = r.facts_reinforced, n.facts_closed = r.facts_closed, n.until = r.until, "
            "n.until_id = r.until_id",
            "rows",
        )
        self.schema_version = statement(VERSION_WRITE, "version")
        # -- episode state ------------------------------------------------------------------
        self.mark_accessed = statement(
            f"{EPISODES_BY_ID} SET ep.last_accessed_at = $at, "
            "ep.access_count = coalesce(ep.access_count, 0) + 1",
            "ids", "ns", "at",
        )
        # The same marks written later, many recalls at once: each row its own time and count.
        self.mark_accessed_rows = statement(
            "UNWIND $rows AS r MATCH (ep:Episode {id: r.id}) WHERE ep.namespace = $ns "
            "SET ep.last_accessed_at = CASE WHEN ep.last_accessed_at IS NULL "
            "OR r.at > ep.last_accessed_at THEN r.at ELSE ep.last_accessed_at END, "
            "ep.access_count = coalesce(ep.access_count, 0) + r.n",
            "rows", "ns",
        )
        self.touch = statement(
            "MATCH (ep:Episode {id: $id}) WHERE ep.namespace = $ns SET "
            "ep.last_seen = CASE WHEN ep.last_seen IS NULL OR $at > ep.last_seen "
            "THEN $at ELSE ep.last_seen END, "
            "ep.access_count = coalesce(ep.access_count, 0) + 1, "
            f"ep.sources = {d.append(f'coalesce(ep.sources, {empty})', '$source')}",
            "id", "ns", "at", "source",
        )
        self.soft_delete = statement(
            f"MATCH (ep:Episode {{id: $id}}) WHERE ep.namespace = $ns AND {live} "
            "SET ep.deleted_at = $at RETURN ep.id",
            "id", "ns", "at", "now",
        )
        self.restore = statement(
            "MATCH (ep:Episode {id: $id}) WHERE ep.namespace = $ns AND ep.deleted_at IS NOT NULL "
            f"SET ep.deleted_at = {d.null('DOUBLE')} RETURN ep.id",
            "id", "ns",
        )
        # -- episode reads ------------------------------------------------------------------
        self.namespaces = statement("MATCH (ep:Episode) RETURN DISTINCT ep.namespace AS ns ORDER BY ns")
        # Where the latest run stopped: after a forced re-read from the first episode, the
        # runs that follow go on from there, not from the furthest any run had read.
        self.reflection_cursor = statement(
            "MATCH (r:Reflection) WHERE r.namespace = $ns RETURN r.until, r.until_id "
            "ORDER BY r.ran_at DESC, r.until DESC, r.until_id DESC LIMIT 1",
            "ns",
        )
        episode = episode_columns("ep")
        self.episodes_after = statement(
            # (created_at, id) order: the episodes of one store_many share their created_at.
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND (ep.created_at > $after OR "
            f"(ep.created_at = $after AND ep.id > $after_id)) AND {live} "
            f"RETURN {episode} ORDER BY ep.created_at, ep.id LIMIT $limit",
            "ns", "after", "after_id", "now", "limit",
        )
        self.last_episode_in_session = statement(
            "MATCH (ep:Episode)-[:IN_SESSION]->(s:Session {id: $sid}) "
            "RETURN ep.id ORDER BY ep.occurred_at DESC, ep.created_at DESC LIMIT 1",
            "sid",
        )
        self.get_episodes = statement(f"{EPISODES_BY_ID} RETURN {episode}", "ids", "ns")
        self.live_episodes = statement(f"{EPISODES_BY_ID} AND {live} RETURN {episode}", "ids", "ns", "now")
        listed = (
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND ($sid = '' OR ep.session_id = $sid) "
            "AND ($layer = '' OR ep.layer = $layer) AND ($include_deleted OR ep.deleted_at IS NULL) "
        )
        self.list_episodes = statement(
            f"{listed}RETURN {episode} ORDER BY ep.occurred_at DESC, ep.created_at DESC "
            "SKIP $skip LIMIT $limit",
            "ns", "sid", "layer", "include_deleted", "skip", "limit",
        )
        self.count_listed = statement(
            f"{listed}RETURN count(ep)", "ns", "sid", "layer", "include_deleted",
        )
        self.recent_episode_ids = statement(
            f"MATCH (ep:Episode) WHERE ep.namespace = $ns AND {live} "
            "AND ($sid = '' OR ep.session_id = $sid) "
            "RETURN ep.id ORDER BY ep.occurred_at DESC, ep.created_at DESC LIMIT $limit",
            "ns", "sid", "now", "limit",
        )
        self.find_by_hash = statement(
            f"MATCH (ep:Episode) WHERE ep.namespace = $ns AND ep.content_hash IN $hashes AND {live} "
            "RETURN ep.content_hash, ep.id ORDER BY ep.created_at",
            "ns", "hashes", "now",
        )
        self.session_neighbours = statement(
            "MATCH (prev:Episode)-[:NEXT]->(ep:Episode {id: $id}) WHERE ep.namespace = $ns "
            f"RETURN 'previous' AS side, {episode_columns('prev')} UNION ALL "
            "MATCH (ep:Episode {id: $id})-[:NEXT]->(nxt:Episode) WHERE ep.namespace = $ns "
            f"RETURN 'next' AS side, {episode_columns('nxt')}",
            "id", "ns",
        )
        self.session_windows = statement(_session_windows(), "ids", "ns")
        # OPTIONAL MATCH, as in _session_windows: Ladybug then walks out of each episode
        # instead of joining NEXT against a scan (2.8 -> 1.0 ms for 5 episodes at 6k).
        self.next_turns = statement(
            EPISODES_BY_ID + " OPTIONAL MATCH (ep)-[:NEXT]->(nxt:Episode) WHERE nxt.namespace = $ns "
            "AND nxt.deleted_at IS NULL RETURN ep.id, nxt.id",
            "ids", "ns",
        )
        self.lifecycle_rows = statement(
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND ep.deleted_at IS NULL RETURN ep.id, "
            "ep.importance, ep.occurred_at, ep.created_at, ep.last_accessed_at, ep.last_seen, "
            "ep.expires_at",
            "ns",
        )
        self.episode_states = statement(
            "MATCH (ep:Episode) RETURN ep.id, ep.namespace, ep.deleted_at IS NOT NULL"
        )
        # -- entities and decisions ---------------------------------------------------------
        self.entities_of = statement(
            from_episodes("(ep)-[:MENTIONS]->(x:Entity)", "x") + " RETURN ep.id, x ORDER BY x.name",
            "ids", "ns",
        )
        self.decisions_of = statement(
            from_episodes("(ep)-[:DECIDED]->(x:Decision)", "x")
            + " RETURN ep.id, x ORDER BY x.decided_at",
            "ids", "ns",
        )
        self.find_entities = statement(
            f"{d.named_entities()} RETURN en ORDER BY en.created_at, en.id", "ns", "names"
        )
        self.entities_with_prefix = statement(f"{d.with_prefix('$prefixes')} RETURN en", "ns", "prefixes")
        self.entity = statement(
            "MATCH (en:Entity {id: $id}) WHERE en.namespace = $ns RETURN en", "id", "ns"
        )
        self.add_alias = statement(
            "MATCH (en:Entity {id: $id}) WHERE en.namespace = $ns SET en.aliases = "
            + d.union(f"coalesce(en.aliases, {empty})", "[$alias]"),
            "id", "ns", "alias",
        )
        self.active_decisions = statement(
            "MATCH (d:Decision) WHERE d.namespace = $ns AND d.status = 'active' AND "
            f"{d.has_any('d.subjects', '$subjects')} RETURN d ORDER BY d.decided_at",
            "ns", "subjects",
        )
        self.decisions_about = statement(
            "MATCH (d:Decision)-[:ABOUT]->(en:Entity) WHERE en.id IN $ids AND d.namespace = $ns "
            "RETURN DISTINCT d ORDER BY d.decided_at DESC LIMIT $limit",
            "ids", "ns", "limit",
        )
        self.decision_links = statement(
            "MATCH (d:Decision)-[:ABOUT]->(en:Entity) WHERE d.id IN $ids AND d.namespace = $ns "
            "RETURN d.id, en.id",
            "ids", "ns",
        )
        fact_rows = f"RETURN {FACT_COLUMNS} ORDER BY {FACT_ORDER}"
        # On Neo4j from each entity by id: the OR of the two ends made its planner scan every
        # FACT edge of the database (`engine.stores.neo4j_recall` reads them so too).
        touching = (
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE (a.id IN $ids OR b.id IN $ids)" if d.typed_lists else
            "UNWIND $ids AS _id WITH DISTINCT _id MATCH (:Entity {id: _id})-[f:FACT]-(:Entity) WITH DISTINCT f "
            "WITH startNode(f) AS a, f, endNode(f) AS b WHERE true"
        )  # fmt: skip
        self.facts_about = statement(
            f"{touching} AND a.namespace = $ns AND ($include_closed OR f.valid_to IS NULL) {fact_rows}",
            "ids", "ns", "include_closed",
        )
        self.facts_by_id = statement(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $ns AND f.id IN $ids "
            f"AND ($include_closed OR f.valid_to IS NULL) {fact_rows}",
            "ids", "ns", "include_closed",
        )
        self.active_facts = statement(
            f"MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $ns AND f.valid_to IS NULL {fact_rows}",
            "ns",
        )
        # Episodes and the entities they mention. Not through decisions as well: a decision is
        # ABOUT entities its own episode MENTIONS (the writer draws them from that episode's
        # entities; merges move both edges), so DECIDED->ABOUT reaches nothing more, and as a
        # second branch it cost as much again as the whole read.
        links = (
            "RETURN ep.id AS episode, en.id AS entity, en.name AS name, "
            "en.mention_count AS degree, ep.occurred_at AS at"
        )
        self.paths_to_entities = statement(
            # From the entity side `IN` is right: entities are few next to episodes.
            f"MATCH (ep:Episode)-[:MENTIONS]->(en:Entity) WHERE en.id IN $ids AND ep.namespace = "
            # Ties in time by episode, then entity, as the embedded store's index orders them.
            f"$ns AND {live} {links} ORDER BY at DESC, episode, entity LIMIT $limit",
            "ids", "ns", "now", "limit",
        )
        self.paths_from_episodes = statement(
            from_episodes(
                "(ep)-[:MENTIONS]->(en:Entity)", "en", where=live, keep="en.mention_count <= $max_degree"
            )
            + f" {links}",
            "ids", "ns", "now", "max_degree",
        )
        # A namespace's MENTIONS edges whole, for the embedded store's `MentionIndex`.
        self.index_episodes = statement(
            "MATCH (ep:Episode) WHERE ep.namespace = $ns "
            "RETURN ep.id, ep.occurred_at, ep.deleted_at, ep.archived_at, ep.expires_at, "
            "ep.content_hash, ep.created_at",
            "ns",
        )
        self.index_entities = statement(
            "MATCH (en:Entity) WHERE en.namespace = $ns RETURN en",
            "ns",
        )
        self.index_mentions = statement(
            "MATCH (ep:Episode)-[:MENTIONS]->(en:Entity) WHERE ep.namespace = $ns "
            "RETURN ep.id, en.id, en.name, en.mention_count",
            "ns",
        )
        # Every episode of a namespace, as `MentionIndex` counts it against its bound.
        self.index_size = statement("MATCH (ep:Episode) WHERE ep.namespace = $ns RETURN count(ep)", "ns")
        # -- counts ('' counts every namespace) ---------------------------------------------
        self.count_episodes = statement(
            f"MATCH (ep:Episode) WHERE {live} AND ($ns = '' OR ep.namespace = $ns) RETURN count(ep)",
            "ns", "now",
        )
        self.count_entities = statement(
            "MATCH (en:Entity) WHERE $ns = '' OR en.namespace = $ns RETURN count(en)", "ns"
        )
        self.count_decisions = statement(
            "MATCH (d:Decision) WHERE d.status = 'active' AND ($ns = '' OR d.namespace = $ns) "
            "RETURN count(d)",
            "ns",
        )
        self.count_facts = statement(
            "MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE f.valid_to IS NULL AND "
            "($ns = '' OR a.namespace = $ns) RETURN count(f)",
            "ns",
        )


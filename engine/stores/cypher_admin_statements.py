"""The statements of purge, entity merge, export and import: the graph's maintenance, in one
dialect. `GraphStatements` holds these and every other statement."""

from __future__ import annotations

from engine.stores.cypher_dialect import Dialect
from engine.stores.cypher_parts import (
    EPISODES_BY_ID,
    FACT_COLUMNS,
    FACT_ORDER,
    StatementSet,
    from_episodes,
    relationship,
    statement,
)
from graph_schema.definitions import NODES, RELATIONSHIPS

__all__ = ["AdminStatements"]


class AdminStatements(StatementSet):
    """Purge, entity merge, export and import."""

    def __init__(self, d: Dialect) -> None:
        super().__init__(d)
        empty = d.empty_strings()
        self.decisions_made_by = statement(
            from_episodes("(ep)-[:DECIDED]->(d:Decision)", "d") + " RETURN DISTINCT d.id",
            "ids", "ns",
        )
        self.drop_mentions = statement(
            from_episodes("(ep)-[:MENTIONS]->(en:Entity)", "en")
            + " SET en.mention_count = en.mention_count - 1",
            "ids", "ns",
        )
        self.delete_decisions = statement(
            "MATCH (d:Decision) WHERE d.id IN $decisions DETACH DELETE d", "decisions"
        )
        self.delete_episodes = statement(f"{EPISODES_BY_ID} DETACH DELETE ep", "ids", "ns")
        self.remove_namespace = tuple(
            statement(f"MATCH (n:{node.label}) WHERE n.namespace = $ns DETACH DELETE n", "ns") for node in NODES
        )
        # The session chain around episodes: what a delete closes over, where a return rejoins.
        self.chain_around = statement(
            f"{EPISODES_BY_ID} OPTIONAL MATCH (prev:Episode)-[:NEXT]->(ep) "
            "OPTIONAL MATCH (ep)-[:NEXT]->(nxt:Episode) RETURN ep.id, prev.id, nxt.id",
            "ids", "ns",
        )
        self.session_members = statement(
            "MATCH (x:Episode)-[:IN_SESSION]->(s:Session {id: $sid}) "
            "RETURN x.id, x.occurred_at, x.created_at",
            "sid",
        )
        self.unlink_next = statement(
            "MATCH (a:Episode {id: $a})-[r:NEXT]->(b:Episode {id: $b}) DELETE r", "a", "b"
        )
        # Facts drawn from purged episodes (`engine/lifecycle/fact_sources.py`), closed ones too.
        self.facts_citing = statement(
            f"MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $ns AND "
            f"{d.has_any('f.source_episode_ids', '$ids')} RETURN {FACT_COLUMNS} ORDER BY {FACT_ORDER}",
            "ns", "ids",
        )
        self.revise_facts = statement(
            "UNWIND $rows AS r MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE a.namespace = $ns AND f.id = r.id "
            "SET f.support = r.support, f.statement = r.statement, f.confidence = r.confidence, "
            f"f.source_episode_ids = r.source_episode_ids, f.valid_from = r.valid_from, "
            f"f.refers_to = {d.cast('r.refers_to', 'DOUBLE')}, "
            f"f.forgotten_ids = {d.cast('r.forgotten_ids', 'STRING[]')}, "
            f"f.quote_forgotten = {d.cast('r.quote_forgotten', 'BOOLEAN')}",
            "rows", "ns",
        )
        self.forgotten_sources = statement(
            "UNWIND $rows AS r MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE a.namespace = $ns AND f.id = r.id "
            f"SET f.forgotten_ids = {d.cast('r.forgotten_ids', 'STRING[]')}, "
            f"f.quote_forgotten = {d.cast('r.quote_forgotten', 'BOOLEAN')}",
            "rows", "ns",
        )
        self.reopen_facts = statement(
            "MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE a.namespace = $ns AND f.invalidated_by IN $ids "
            f"AND NOT f.id IN $ids SET f.valid_to = {d.null('DOUBLE')}, f.invalidated_by = {d.null('STRING')} "
            "RETURN f.id",
            "ns", "ids",
        )
        self.delete_facts = statement(
            "MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE a.namespace = $ns AND f.id IN $ids DELETE f",
            "ns", "ids",
        )
        # Entities nothing refers to any more: no episode mentions them, no fact or decision
        # names them (what a purge leaves of what only the purged episodes said).
        self.prune_entities = statement(
            "MATCH (en:Entity) WHERE en.namespace = $ns AND en.id IN $ids "
            "AND NOT EXISTS { MATCH (:Episode)-[:MENTIONS]->(en) } "
            "AND NOT EXISTS { MATCH (en)-[:FACT]-(:Entity) } "
            "AND NOT EXISTS { MATCH (:Decision)-[:ABOUT]->(en) } DETACH DELETE en",
            "ns", "ids",
        )
        self.drop_entities = statement(
            "MATCH (en:Entity) WHERE en.namespace = $ns AND en.id IN $ids AND en.type = $type DETACH DELETE en",
            "ns", "ids", "type",
        )
        self.both_entities = statement(
            "MATCH (a:Entity {id: $keep}) MATCH (b:Entity {id: $absorb}) WHERE a.namespace = $ns "
            "AND b.namespace = $ns RETURN a.id",
            "keep", "absorb", "ns",
        )
        # Entity merge: move every edge of $absorb to $keep (without doubling one that exists),
        # fold names and counts, then remove the absorbed node.
        fact_copy = ", ".join(
            f"`{name}`: f.`{name}`" for name, _ in relationship("FACT").properties
        )
        self.merge_entity_steps = tuple(
            statement(text, "keep", "absorb")
            for text in (
                "MATCH (ep:Episode)-[m:MENTIONS]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
                "WHERE NOT EXISTS { MATCH (ep)-[:MENTIONS]->(a) } CREATE (ep)-[:MENTIONS {count: m.count}]->(a)",
                "MATCH (d:Decision)-[:ABOUT]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
                "WHERE NOT EXISTS { MATCH (d)-[:ABOUT]->(a) } CREATE (d)-[:ABOUT]->(a)",
                "MATCH (b:Entity {id: $absorb})-[f:FACT]->(o:Entity) MATCH (a:Entity {id: $keep}) "
                f"CREATE (a)-[:FACT {{{fact_copy}}}]->(o)",
                "MATCH (o:Entity)-[f:FACT]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
                f"CREATE (o)-[:FACT {{{fact_copy}}}]->(a)",
                "MATCH (a:Entity {id: $keep}) MATCH (b:Entity {id: $absorb}) SET a.aliases = "
                + d.union(
                    d.union(f"coalesce(a.aliases, {empty})", f"coalesce(b.aliases, {empty})"),
                    "[b.canonical]",
                )
                + ", a.mention_count = a.mention_count + b.mention_count, "
                "a.first_seen = CASE WHEN b.first_seen < a.first_seen THEN b.first_seen ELSE a.first_seen END, "
                "a.last_seen = CASE WHEN b.last_seen > a.last_seen THEN b.last_seen ELSE a.last_seen END",
                "MATCH (b:Entity {id: $absorb}) DETACH DELETE b",
            )
        )
        self.export_nodes = {
            node.label: statement(f"MATCH (n:{node.label}) RETURN n ORDER BY n.id") for node in NODES
        }
        self.export_rels = {
            rel.name: statement(
                f"MATCH (a:{rel.source})-[r:{rel.name}]->(b:{rel.target}) RETURN a.id, b.id, r "
                "ORDER BY a.id, b.id"
            )
            for rel in RELATIONSHIPS
        }
        self.import_nodes = {
            node.label: statement(
                f"UNWIND $rows AS r CREATE (n:{node.label} {{id: r.id}}) SET "
                + self.set_clause(node.properties),
                "rows",
            )
            for node in NODES
        }
        self.import_rels = {
            rel.name: statement(
                f"UNWIND $rows AS r MATCH (a:{rel.source} {{id: r.src}}) "
                f"MATCH (b:{rel.target} {{id: r.dst}}) CREATE (a)-[:{rel.name} {{"
                + ", ".join(f"`{p}`: {d.cast(f'r.`{p}`', t)}" for p, t in rel.properties)
                + "}]->(b)",
                "rows",
            )
            for rel in RELATIONSHIPS
        }


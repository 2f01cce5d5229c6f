"""Recall's graph reads on Neo4j in few statements: each a server round trip, where the
embedded store answers the same questions in process (`CypherGraphStore.named_rows` and
`hop_rows` compose them from the single reads).

`NAMED_ROWS` reads the entities a question names, the episodes that mention them and their
facts; `HOP_ROWS` one hop of expansion (the frontier's entities, their active facts, the
episodes that mention them or an entity one fact away); `READ_AHEAD` what recall reads after
its channels (`engine.recall.reads`). Each part is the single statement's
query as a `CALL` subquery, its rows collected in its own order, so that both stores return
the same rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.stores.base import HopRows, NamedRows, ReadAhead
from engine.stores.cypher_dialect import NEO4J
from engine.stores.cypher_digests import digest_from
from engine.stores.cypher_parts import (
    FACT_COLUMNS,
    FACT_ORDER,
    Statement,
    live_condition,
    statement,
)
from engine.stores.graph_rows import entity_from, episode_from_columns, facts_from, link_from
from graph_schema.definitions import EPISODE

__all__ = [
    "HOP_ROWS", "NAMED_ROWS", "READ_AHEAD", "frontier_rows", "hop_rows_from", "named_rows_from", "read_ahead_from",
]  # fmt: skip

_LINK = "[ep.id, en.id, en.name, en.mention_count]"
_FACT = f"[{FACT_COLUMNS}]"


# Both reads start from the entities, by their id: written as `en.id IN ids`, the planner
# began from every episode of the namespace (or every FACT edge of the database) and
# filtered, ~26,000 db hits a read at 3,000 episodes, growing with the store.
def _mentioning(ids: str) -> str:
    """The live episodes that mention an entity of `ids`, newest first, `$limit` at most."""
    return (
        f"CALL ({ids}) {{ UNWIND {ids} AS _id WITH DISTINCT _id MATCH (en:Entity {{id: _id}}) "
        f"MATCH (ep:Episode)-[:MENTIONS]->(en) WHERE ep.namespace = $ns AND {live_condition('ep')} "
        f"WITH ep, en ORDER BY ep.occurred_at DESC, ep.id, en.id LIMIT $limit "
        f"RETURN collect({_LINK}) AS mentions }}"
    )


def _facts(ids: str, closed: str) -> str:
    """The facts from or to an entity of `ids` (closed ones too when `closed` holds)."""
    return (
        f"CALL ({ids}) {{ UNWIND {ids} AS _id WITH DISTINCT _id MATCH (:Entity {{id: _id}})-[f:FACT]-(:Entity) "
        f"WHERE {closed} OR f.valid_to IS NULL WITH DISTINCT f WITH startNode(f) AS a, f, endNode(f) AS b "
        f"WHERE a.namespace = $ns WITH a, f, b ORDER BY {FACT_ORDER} RETURN collect({_FACT}) AS facts }}"
    )


NAMED_ROWS: Statement = statement(
    f"{NEO4J.named_entities()} WITH en ORDER BY en.created_at, en.id "
    "WITH collect(en) AS named "
    "WITH named, [x IN named | x.id] AS every, "
    "[x IN named WHERE x.mention_count <= $max_degree | x.id] AS specific "
    f"{_mentioning('specific')} {_facts('every', 'true')} "
    "RETURN named, mentions, facts",
    "ns", "names", "now", "max_degree", "limit",
)

HOP_ROWS: Statement = statement(
    # The frontier's links, as `paths_from_episodes` reads them (a MATCH of no row aggregates
    # to empty lists), and the entities reached other than through an episode's own path.
    "OPTIONAL MATCH (ep:Episode) WHERE ep.id IN [r IN $frontier | r.id] AND ep.namespace = $ns "
    f"AND {live_condition('ep')} "
    "OPTIONAL MATCH (ep)-[:MENTIONS]->(en:Entity) WHERE en.mention_count <= $max_degree "
    "WITH ep, en, head([r IN $frontier WHERE r.id = ep.id | r.skip]) AS skip "
    f"WITH collect(CASE WHEN en IS NULL THEN null ELSE {_LINK} END) AS links, "
    "collect(DISTINCT CASE WHEN en IS NULL OR en.id IN skip THEN null ELSE en.id END) AS via "
    f"{_facts('via', 'false')} "
    # The entities one active fact away from those reached (`one_fact_away`).
    "WITH links, facts, via + "
    "[x IN facts WHERE NOT (x[3] IN via AND x[4] IN via) | CASE WHEN x[3] IN via THEN x[4] ELSE x[3] END] AS reach "
    f"{_mentioning('reach')} "
    "RETURN links, facts, mentions",
    "ns", "frontier", "now", "max_degree", "limit",
)


def frontier_rows(frontier: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """The frontier as `HOP_ROWS` takes it: each episode with the ids on its path."""
    return [{"id": episode, "skip": list(skip)} for episode, skip in frontier.items()]


def named_rows_from(row: Sequence[Any]) -> NamedRows:
    named, mentions, facts = row
    return NamedRows(entities=[entity_from(n) for n in named], mentions=[link_from(m) for m in mentions],
                     facts=facts_from(facts))  # fmt: skip


def hop_rows_from(row: Sequence[Any]) -> HopRows:
    links, facts, mentions = row
    return HopRows(links=[link_from(k) for k in links], facts=facts_from(facts), mentions=[link_from(m) for m in mentions])


_EPISODE = "[" + ", ".join(f"ep.{name}" for name, _ in EPISODE.properties) + "]"

READ_AHEAD: Statement = statement(
    # Each id's next turn not deleted, as `next_turns` reads it.
    "CALL () { UNWIND $next_of AS i MATCH (ep:Episode {id: i}) WHERE ep.namespace = $ns "
    "OPTIONAL MATCH (ep)-[:NEXT]->(nxt:Episode) WHERE nxt.namespace = $ns AND nxt.deleted_at IS NULL "
    "RETURN collect([ep.id, nxt.id]) AS next } "
    # The live ones of the ids and of those next turns, with every entity they mention.
    "CALL (next) { UNWIND $ids + [x IN next WHERE x[1] IS NOT NULL | x[1]] AS i WITH DISTINCT i "
    f"MATCH (ep:Episode {{id: i}}) WHERE ep.namespace = $ns AND {live_condition('ep')} "
    "OPTIONAL MATCH (ep)-[:MENTIONS]->(en:Entity) WITH ep, collect(en.name) AS names "
    f"RETURN collect([{_EPISODE}, names]) AS episodes }} "
    "CALL () { MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $ns AND f.id IN $fact_ids "
    f"AND f.valid_to IS NULL RETURN collect({_FACT}) AS facts }} "
    "CALL () { UNWIND $digest_ids AS i MATCH (n:Digest {id: i}) WHERE n.namespace = $ns "
    "RETURN collect(n) AS digests } "
    "RETURN next, episodes, facts, digests",
    "ns", "ids", "next_of", "now", "fact_ids", "digest_ids",
)


def read_ahead_from(row: Sequence[Any], asked: Sequence[str], next_of: Sequence[str]) -> ReadAhead:
    next_rows, episode_rows, facts, digests = row
    next_turns: dict[str, str | None] = dict.fromkeys(next_of)
    next_turns.update((str(i), None if n is None else str(n)) for i, n in next_rows)
    episodes = {str(columns[0]): episode_from_columns(columns) for columns, _ in episode_rows}
    names = {str(columns[0]): sorted(set(found)) for columns, found in episode_rows}
    every = {*asked, *(n for n in next_turns.values() if n is not None)}
    return ReadAhead(
        episodes={i: episodes.get(i) for i in every}, names=names, next_turns=next_turns,
        facts=facts_from(facts), digests=[digest_from(d) for d in digests],
    )  # fmt: skip

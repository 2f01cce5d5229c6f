"""Finding the entities a question names, as a namespace's entities grow: on Neo4j by its
indexes (the canonical name's range index, the aliases' full-text one), against the filter over
the namespace's entities the same store ran before, A/B in one run on one server.

    python -m bench.entities [--entities 1000,20000] [--asks 200] [--json]

Needs a Neo4j server (`make neo4j-up`, then `eval "$(tools/neo4j/neo4j.sh env)"`): each size is
written into a namespace of its own, `bench-entities-<n>`, removed at the end. One entity in 50
has an alias. Each ask names two stored names (one of them an alias where it has one) and an
unknown one, as a question does; the two forms must return the same entities for the first
20 asks before any is timed. Reported: the
median milliseconds of `find_entities` by each form, and of recall's first read
(`named_rows`: the named entities, their episodes and facts), which uses the index form.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from typing import Any

from engine.models import Entity
from engine.stores.base import GraphBatch
from engine.stores.cypher_parts import statement
from engine.stores.graph_rows import entity_from
from engine.stores.neo4j_graph import Neo4jGraphStore

# The filter the lookup replaced: every entity of the namespace read and compared.
SCAN = statement(
    "MATCH (en:Entity) WHERE en.namespace = $ns AND (en.canonical IN $names OR any(_x IN en.aliases WHERE _x IN $names)) "
    "RETURN en ORDER BY en.created_at, en.id",
    "ns", "names",
)  # fmt: skip
_BATCH = 2_000


def _entities(namespace: str, count: int) -> list[Entity]:
    return [
        Entity(id=f"{namespace}-{i}", namespace=namespace, name=f"Name {i}", canonical=f"name {i}", type="PERSON",
               aliases=[f"alias {i}"] if i % 50 == 0 else [], first_seen=1.0, last_seen=1.0, mention_count=1,
               created_at=1.0)
        for i in range(count)
    ]  # fmt: skip


def _median_ms(call: Any, asks: list[list[str]]) -> float:
    times = []
    for names in asks:
        start = time.perf_counter()
        call(names)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def measure(graph: Neo4jGraphStore, count: int, ask_count: int) -> dict[str, Any]:
    namespace = f"bench-entities-{count}"
    graph.remove_namespace(namespace)
    entities = _entities(namespace, count)
    for start in range(0, count, _BATCH):
        graph.write(GraphBatch(entities=entities[start : start + _BATCH]))
    rng = random.Random(count)
    asks = []
    for _ in range(ask_count):
        first, second = rng.sample(entities, 2)
        asks.append([first.canonical, (second.aliases or [second.canonical])[0], f"nobody {rng.random()}"])

    def scanned(names: list[str]) -> list[str]:
        return [entity_from(row[0]).id for row in graph._run(SCAN, {"ns": namespace, "names": names})]

    def indexed(names: list[str]) -> list[str]:
        return [e.id for e in graph.find_entities(namespace, names)]

    for names in asks[:20]:  # each form's plan compiled, and both agree
        if scanned(names) != indexed(names):
            raise SystemExit(f"the two forms disagree on {names}")
    row = {
        "entities": count,
        "scan_ms": _median_ms(scanned, asks),
        "index_ms": _median_ms(indexed, asks),
        "named_rows_ms": _median_ms(lambda names: graph.named_rows(namespace, names, 2e9, 100, 40), asks),
    }
    row["scan_vs_index"] = round(row["scan_ms"] / row["index_ms"], 1)
    graph.remove_namespace(namespace)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", default="1000,20000", help="namespace sizes, comma-separated")
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        raise SystemExit('bench.entities needs a Neo4j server: make neo4j-up; eval "$(tools/neo4j/neo4j.sh env)"')
    graph = Neo4jGraphStore(uri, user=os.environ.get("NEO4J_USER", "neo4j"),
                            password=os.environ.get("NEO4J_PASSWORD", ""),
                            database=os.environ.get("NEO4J_DATABASE", "neo4j"))  # fmt: skip
    try:
        rows = [measure(graph, int(n), args.asks) for n in args.entities.split(",")]
    finally:
        graph.close()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| entities in the namespace | filter (ms) | indexes (ms) | filter / indexes | named_rows (ms) |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['entities']:,} | {r['scan_ms']} | {r['index_ms']} | {r['scan_vs_index']}x | {r['named_rows_ms']} |")


if __name__ == "__main__":
    main()

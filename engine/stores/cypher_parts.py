"""The pieces every Cypher statement set is built from: `Statement` (a text and the parameters
it takes), the episode columns and the by-id opening that Ladybug's planner needs, the live
filter, and `StatementSet`, whose statements are its attributes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.analyst.guard import READ_ONLY_PROCEDURES, check_read_only
from engine.errors import ReadOnlyViolation
from engine.stores.cypher_dialect import Dialect
from graph_schema.definitions import EPISODE, RELATIONSHIPS, RelType

__all__ = [
    "EPISODES_BY_ID", "FACT_COLUMNS", "FACT_ORDER", "CypherRunner", "Statement", "StatementSet", "episode_columns",
    "from_episodes",
    "live_condition", "may_write", "relationship", "statement",
]  # fmt: skip


# What the stores' own reads may CALL beyond an analyst: the aliases' full-text index, whose
# rows those reads keep to their namespace (`Dialect.named_entities`).
_STORE_READ_PROCEDURES = READ_ONLY_PROCEDURES | {"db.index.fulltext.querynodes"}


@lru_cache(maxsize=1024)
def may_write(query: str) -> bool:
    """Whether a statement may change the graph: whatever the analyst check would refuse,
    but for the procedures the stores' reads call."""
    try:
        check_read_only(query, procedures=_STORE_READ_PROCEDURES)
    except ReadOnlyViolation:
        return True
    return False


@dataclass(frozen=True)
class Statement:
    text: str
    params: frozenset[str]

    @property
    def writes(self) -> bool:
        """Whether it may change the graph (Neo4j runs the others in READ mode)."""
        return may_write(self.text)

    def check(self, given: Sequence[str]) -> None:
        """Refuse a call that passes other parameters than the statement takes (a bug)."""
        if set(given) != self.params:
            raise TypeError(
                f"statement takes {sorted(self.params)}, got {sorted(given)}: {self.text[:80]}"
            )


def statement(text: str, *params: str) -> Statement:
    return Statement(text, frozenset(params))


def episode_columns(var: str) -> str:
    """Every Episode property as its own column, in `EPISODE.properties` order.

    Columns, not the node: Ladybug builds a node value property by property, which made a
    50-episode read 3-8x slower than these columns (see `episode_from_columns`).
    """
    return ", ".join(f"{var}.{name} AS {name}" for name, _ in EPISODE.properties)


# Episodes by id for Ladybug's planner: `UNWIND ... {id: i}` looks each id up in the primary
# key index, where `ep.id IN $ids` scans every episode (20x slower at 10k, 40x at 35k). What
# follows from them goes in an OPTIONAL MATCH, so the planner walks out of each one; as a
# plain MATCH it joins against a scan of the whole relationship table instead (see
# `_from_episodes`).
EPISODES_BY_ID = "UNWIND $ids AS i MATCH (ep:Episode {id: i}) WHERE ep.namespace = $ns"


def from_episodes(pattern: str, last: str, *, where: str = "", keep: str = "") -> str:
    """EPISODES_BY_ID (and `where` on the episode), then `pattern` out of each: the rows where
    it matches (`last` bound) and `keep` holds.

    >>> from_episodes("(ep)-[:MENTIONS]->(x:Entity)", "x").split(" OPTIONAL ")[1]
    'MATCH (ep)-[:MENTIONS]->(x:Entity) WITH * WHERE x IS NOT NULL'
    """
    extra = f" AND {where}" if where else ""
    matched = f"{last} IS NOT NULL" + (f" AND {keep}" if keep else "")
    return f"{EPISODES_BY_ID}{extra} OPTIONAL MATCH {pattern} WITH * WHERE {matched}"


# A FACT row as every fact read returns it (`graph_rows.facts_from`), and their order: ties
# (one episode, two facts) by content, so every backend lists them alike.
FACT_COLUMNS = "a.name, b.name, f, a.id, b.id"
FACT_ORDER = "f.confidence DESC, f.valid_from DESC, f.predicate, b.name, a.name"


def live_condition(var: str) -> str:
    """A live node: not deleted, not archived, not expired at $now."""
    return (
        f"{var}.deleted_at IS NULL AND {var}.archived_at IS NULL "
        f"AND ({var}.expires_at IS NULL OR {var}.expires_at > $now)"
    )


def relationship(name: str) -> RelType:
    return next(r for r in RELATIONSHIPS if r.name == name)


class StatementSet:
    """Statements as attributes (a `Statement`, or a dict or tuple of them), in one dialect."""

    def __init__(self, d: Dialect) -> None:
        self._d = d

    def set_clause(self, properties: Sequence[tuple[str, str]], var: str = "n") -> str:
        """SET of every property but the id from the UNWIND row `r`, cast where the dialect must.

        >>> from engine.stores.cypher_dialect import NEO4J
        >>> StatementSet(NEO4J).set_clause([("id", "STRING"), ("at", "DOUBLE")])
        'n.`at` = r.`at`'
        """
        return ", ".join(
            f"{var}.`{name}` = {self._d.cast(f'r.`{name}`', kind)}"
            for name, kind in properties
            if name != "id"
        )

    def every(self) -> Iterator[tuple[str, Statement]]:
        """(name, statement) for each statement, for the linter."""
        for name, value in vars(self).items():
            if isinstance(value, Statement):
                yield name, value
            elif isinstance(value, dict):
                for key, statement in value.items():
                    yield f"{name}.{key}", statement
            elif isinstance(value, tuple):
                for i, statement in enumerate(value):
                    yield f"{name}.{i}", statement


class CypherRunner:
    """What the Cypher store's mixins run their statements with; `CypherGraphStore` and its
    backends provide it."""

    def _run(self, statement: Statement, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        raise NotImplementedError

    def _run_all(self, plan: Sequence[tuple[Statement, Mapping[str, Any]]]) -> None:
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[None]:
        raise NotImplementedError

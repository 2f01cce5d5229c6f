"""The few places where Ladybug's Cypher and Neo4j's differ, as one small object per backend.

Every statement of the graph stores is written once (`cypher_statements.py`) and asks its
dialect for the parts that differ: list functions, typed NULLs and casts, and the lookups of
entities by name, which Neo4j answers from its indexes. Everything else
(MATCH, UNWIND, MERGE, EXISTS subqueries, UNION ALL, ORDER BY, SKIP/LIMIT) is common ground.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graph_schema.neo4j import ENTITY_ALIASES

__all__ = ["Dialect", "LADYBUG", "NEO4J"]


@dataclass(frozen=True)
class Dialect:
    name: Literal["ladybug", "neo4j"]

    @property
    def typed_lists(self) -> bool:
        # Ladybug types every column; a value NULL in every row of an UNWIND is typed STRING,
        # so its writes cast. Neo4j stores what the driver sends.
        return self.name == "ladybug"

    def cast(self, expr: str, kind: str) -> str:
        """`expr` as a property of `kind` (STRING, DOUBLE, INT64, BOOLEAN, STRING[]).

        >>> LADYBUG.cast("r.x", "DOUBLE"), NEO4J.cast("r.x", "DOUBLE"), LADYBUG.cast("r.s", "STRING")
        ('CAST(r.x AS DOUBLE)', 'r.x', 'r.s')
        """
        return f"CAST({expr} AS {kind})" if self.typed_lists and kind != "STRING" else expr

    def null(self, kind: str) -> str:
        """A NULL of a type (Ladybug must know the type of a NULL column in a UNION)."""
        return f"CAST(NULL AS {kind})" if self.typed_lists else "null"

    def empty_strings(self) -> str:
        return "CAST([] AS STRING[])" if self.typed_lists else "[]"

    def has_any(self, items: str, values: str) -> str:
        """True when the list `items` shares an element with the list `values`.

        >>> NEO4J.has_any("en.aliases", "$names")
        'any(_x IN en.aliases WHERE _x IN $names)'
        """
        if self.typed_lists:
            return f"list_has_any({items}, {values})"
        return f"any(_x IN {items} WHERE _x IN {values})"

    def union(self, first: str, second: str) -> str:
        """The elements of both lists, each once, in first-seen order."""
        if self.typed_lists:
            return f"list_distinct(list_concat({first}, {second}))"
        return f"reduce(_acc = [], _x IN {first} + {second} | CASE WHEN _x IN _acc THEN _acc ELSE _acc + _x END)"

    def append(self, items: str, item: str) -> str:
        return f"list_append({items}, {item})" if self.typed_lists else f"{items} + {item}"

    def named_entities(self) -> str:
        """The entities of namespace `$ns` whose canonical name or an alias is in `$names`,
        one row `en` each (unordered). Neo4j looks each name up in its indexes, the canonical
        name's and the aliases' full-text one (`graph_schema.neo4j`): a filter over the
        namespace reads all of its entities, ~60,000 db hits and 14 ms at 20,000 of them."""
        if self.typed_lists:
            return f"MATCH (en:Entity) WHERE en.namespace = $ns AND (en.canonical IN $names OR {self.has_any('en.aliases', '$names')})"
        return (
            f"CALL () {{ UNWIND $names AS _n MATCH (en:Entity {{canonical: _n}}) {_BY_CANONICAL} WHERE en.namespace = $ns RETURN en "
            "UNION UNWIND $names AS _n WITH _n WHERE _n <> '' "
            f"CALL db.index.fulltext.queryNodes('{ENTITY_ALIASES}', {_LUCENE_PHRASE}) YIELD node AS en "
            f"WITH en WHERE en.namespace = $ns AND {self.has_any('en.aliases', '$names')} RETURN en }}"
        )

    def with_prefix(self, prefixes: str) -> str:
        """The entities of namespace `$ns` whose canonical name starts with one of `prefixes`,
        one row `en` each. On Neo4j each prefix seeks the canonical name's index, where a
        filter over the namespace read all of its entities."""
        if self.typed_lists:
            return f"MATCH (en:Entity) WHERE en.namespace = $ns AND {self.starts_with_any('en.canonical', prefixes)}"
        return (
            f"UNWIND {prefixes} AS _p MATCH (en:Entity) {_BY_CANONICAL} WHERE en.canonical STARTS WITH _p AND en.namespace = $ns "
            "WITH DISTINCT en"
        )

    def starts_with_any(self, text: str, prefixes: str) -> str:
        # Ladybug cannot read a parameter inside a list comprehension; a lambda over it works.
        if self.typed_lists:
            return f"list_any_value(list_transform({prefixes}, _p -> starts_with({text}, _p)))"
        return f"any(_p IN {prefixes} WHERE {text} STARTS WITH _p)"


# Planned from statistics, the lookup began as often from the namespace's index (every entity
# of it) as from the canonical name's, by what the statistics said when it was first planned
# (0.9 ms or 25 ms at 20,000 entities, `bench.entities`).
_BY_CANONICAL = "USING INDEX en:Entity(canonical)"
# A name as one Lucene phrase, `"` and `\` escaped: the aliases' index keeps each alias whole
# (keyword analyzer), so the phrase finds exactly that alias.
_LUCENE_PHRASE = r"""'"' + replace(replace(_n, '\\', '\\\\'), '"', '\\"') + '"' """.strip()

LADYBUG = Dialect("ladybug")
NEO4J = Dialect("neo4j")

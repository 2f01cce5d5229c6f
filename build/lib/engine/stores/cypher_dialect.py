"""The few places where Ladybug's Cypher and Neo4j's differ, as one small object per backend.

Every statement of the graph stores is written once (`cypher_statements.py`) and asks its
dialect for the parts that differ: list functions, typed NULLs and casts. Everything else
(MATCH, UNWIND, MERGE, EXISTS subqueries, UNION ALL, ORDER BY, SKIP/LIMIT) is common ground.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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

    def starts_with_any(self, text: str, prefixes: str) -> str:
        # Ladybug cannot read a parameter inside a list comprehension; a lambda over it works.
        if self.typed_lists:
            return f"list_any_value(list_transform({prefixes}, _p -> starts_with({text}, _p)))"
        return f"any(_p IN {prefixes} WHERE {text} STARTS WITH _p)"


LADYBUG = Dialect("ladybug")
NEO4J = Dialect("neo4j")

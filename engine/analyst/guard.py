"""Is a Cypher statement read-only? A lexical check, before any store sees the statement.

The graph store runs analyst Cypher inside a read-only transaction as well; this check comes
first because some statements write without writing the graph (`COPY ... TO` a file, `EXPORT
DATABASE`, `INSTALL`, `ATTACH`) and because it names the offending keyword in the error.

The check removes comments, string literals and backticked names (where a keyword is
harmless), then looks for write keywords as whole words in any case. It errs on the side of
refusing: a read query that needs a refused keyword inside a name can backtick it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from engine.analyst.schema_procedures import SCHEMA_PROCEDURES
from engine.errors import InvalidInput, ReadOnlyViolation
from engine.inputs import check_json_tree, is_unicode_text

__all__ = [
    "READ_ONLY_PROCEDURES",
    "bind_params",
    "check_read_only",
    "foreign_namespaces",
    "references_parameter",
]

# Clauses that change the graph, the schema, files or the database's configuration.
_WRITE_KEYWORDS = frozenset(
    {
        "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "FOREACH",
        "COPY", "EXPORT", "IMPORT", "INSTALL", "LOAD", "ATTACH", "USE", "CHECKPOINT",
        "BEGIN", "COMMIT", "ROLLBACK", "TRANSACTION", "TRANSACTIONS", "GRANT", "REVOKE",
        "DENY", "TERMINATE", "START", "STOP", "RENAME", "UPDATE", "INSERT",
    }  # fmt: skip
)
# Procedures an analyst may CALL: the schema ones, answered from hindsight's own schema. The
# full-text index is not among them: its scores count the words of every namespace.
READ_ONLY_PROCEDURES = frozenset(SCHEMA_PROCEDURES)

# A comment or a literal; the `end` group is empty when it runs to the end of the query.
_COMMENTS_AND_LITERALS = re.compile(
    r"""//[^\n]*(?P<line>)|/\*.*?(?P<block>\*/|$)|'(?:[^'\\]|\\.)*(?P<single>'|$)"""
    r"""|"(?:[^"\\]|\\.)*(?P<double>"|$)|`[^`]*(?P<tick>`|$)""",
    re.DOTALL,
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_CALL = re.compile(r"\bCALL\s+([A-Za-z_][A-Za-z_0-9.]*)", re.IGNORECASE)



def check_read_only(query: str, *, procedures: frozenset[str] = READ_ONLY_PROCEDURES) -> str:
    """Return the query stripped of a trailing `;`, or raise ReadOnlyViolation naming why.
    `procedures` are those it may CALL (lower case).

    >>> check_read_only("MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e.summary;")
    'MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e.summary'
    >>> check_read_only("MATCH (n) RETURN 'CREATE is only text' AS note")
    "MATCH (n) RETURN 'CREATE is only text' AS note"
    >>> check_read_only("MATCH (n) DETACH DELETE n")
    Traceback (most recent call last):
    engine.errors.ReadOnlyViolation: query_graph is read-only: DETACH is not allowed
    >>> check_read_only("match (n) /* harmless */ sEt n.x = 1")
    Traceback (most recent call last):
    engine.errors.ReadOnlyViolation: query_graph is read-only: SET is not allowed
    >>> check_read_only("MATCH (n) RETURN n; MATCH (m) RETURN m")
    Traceback (most recent call last):
    engine.errors.ReadOnlyViolation: query_graph is read-only: one statement at a time (found ';')
    """
    if not isinstance(query, str) or not query.strip():
        raise ReadOnlyViolation("query_graph needs a non-empty Cypher statement")
    if not is_unicode_text(query):
        raise InvalidInput("query", "holds a lone surrogate: it is not valid Unicode text")
    visible = _COMMENTS_AND_LITERALS.sub(" ", query)
    for match in _COMMENTS_AND_LITERALS.finditer(query):
        if match.lastgroup != "line" and not match.group(match.lastgroup or 0):
            raise ReadOnlyViolation("query_graph is read-only: unterminated string or comment")
    stripped_visible = visible.rstrip().removesuffix(";")
    if ";" in stripped_visible:
        raise ReadOnlyViolation("query_graph is read-only: one statement at a time (found ';')")
    for word in _WORD.findall(visible):
        if word.upper() in _WRITE_KEYWORDS:
            raise ReadOnlyViolation(f"query_graph is read-only: {word.upper()} is not allowed")
    for procedure in _CALL.findall(visible):
        if procedure.lower() not in procedures:
            raise ReadOnlyViolation(
                f"query_graph is read-only: CALL {procedure} is not an allowed procedure "
                f"(allowed: {', '.join(sorted(procedures))})"
            )
    return query.rstrip().removesuffix(";").rstrip()


def references_parameter(query: str, name: str) -> bool:
    """Whether the query uses `$name` outside comments and literals.

    >>> references_parameter("MATCH (n) WHERE n.namespace = $namespace RETURN n", "namespace")
    True
    >>> references_parameter("MATCH (n) RETURN '$namespace' // $namespace", "namespace")
    False
    """
    visible = _COMMENTS_AND_LITERALS.sub(" ", query)
    return re.search(r"\$" + re.escape(name) + r"\b", visible) is not None


_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def bind_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Analyst parameters: named JSON values; `namespace` is the engine's to bind."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise InvalidInput("params", "must be a JSON object of parameter names to values")
    bound: dict[str, Any] = {}
    for name, value in params.items():
        if not isinstance(name, str) or not _PARAM_NAME.fullmatch(name):
            raise InvalidInput("params", f"{name!r} is not a parameter name")
        if name == "namespace":
            raise InvalidInput("params.namespace", "is bound by hindsight to the caller's namespace")
        try:
            check_json_tree(value)
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"params.{name}", f"must be a JSON value ({exc})") from None
        bound[name] = value
    return bound


def foreign_namespaces(value: Any, readable: set[str]) -> set[str]:
    """Namespaces of returned nodes that the caller may not read.

    >>> foreign_namespaces([[{"label": "Episode", "namespace": "b"}], [1]], {"a", "shared"})
    {'b'}
    """
    if isinstance(value, list):
        return set().union(*(foreign_namespaces(v, readable) for v in value)) if value else set()
    if isinstance(value, dict):
        found = set().union(*(foreign_namespaces(v, readable) for v in value.values())) if value else set()
        ns = value.get("namespace")
        if "label" in value and isinstance(ns, str) and ns not in readable:
            found.add(ns)
        return found
    return set()

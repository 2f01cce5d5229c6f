"""Is every part of an analyst query tied to the caller's namespace?

A query that filters *some* node on `$namespace` can still read other namespaces: through a
second pattern (`MATCH (a) WHERE a.namespace = $namespace MATCH (b:Episode) RETURN count(b)`)
or an `OR` (`WHERE a.namespace = $namespace OR true`). Returned nodes are checked after the
fact, but a count, an EXISTS or a property read leaks without returning a node. So before the
query runs, each pattern of each MATCH must be *scoped*: it contains a variable that a
top-level conjunct of its WHERE pins with `v.namespace = $namespace`, or one that an earlier
scoped pattern bound. Edges never cross namespaces, so a connected pattern is scoped as a
whole. A full-text CALL must pin the node it yields the same way.

Lexical, like `cypher_guard`: strict on purpose (a renamed variable after WITH is not
followed); the error says how to write the query.
"""

from __future__ import annotations

import re

from engine.cypher_guard import visible_text

__all__ = ["unscoped_parts"]

_CLAUSE = re.compile(
    r"\b(OPTIONAL\s+MATCH|MATCH|WHERE|RETURN|WITH|UNWIND|CALL|ORDER\s+BY|SKIP|LIMIT|UNION|YIELD)\b",
    re.IGNORECASE,
)
_PINNED = re.compile(
    r"^\(*\s*(?:(\w+)\.namespace\s*=\s*\$namespace|\$namespace\s*=\s*(\w+)\.namespace)\s*\)*$",
    re.IGNORECASE,
)
_VARIABLE = re.compile(r"[(\[]\s*([A-Za-z_]\w*)|^\s*([A-Za-z_]\w*)\s*=")
_OPEN, _CLOSE = "([{", ")]}"


def _depth_split(text: str, separator: re.Pattern[str]) -> list[str]:
    """Split where `separator` matches outside brackets."""
    parts, depth, start = [], 0, 0
    i = 0
    while i < len(text):
        char = text[i]
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif depth == 0 and (found := separator.match(text, i)):
            parts.append(text[start:i])
            start = i = found.end()
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _clauses(text: str) -> list[tuple[str, str]]:
    """(keyword, body) for each clause at any nesting; a body stops at the next clause of its
    own bracket level or where that level closes."""
    found = []
    for match in _CLAUSE.finditer(text):
        keyword = re.sub(r"\s+", " ", match.group(1).upper())
        depth, end = 0, len(text)
        for j in range(match.end(), len(text)):
            char = text[j]
            if char in _OPEN:
                depth += 1
            elif char in _CLOSE:
                if depth == 0:
                    end = j
                    break
                depth -= 1
            elif depth == 0 and _CLAUSE.match(text, j):
                end = j
                break
        found.append((keyword, text[match.end() : end]))
    return found


def _pinned(where: str) -> set[str]:
    """Variables a WHERE pins to $namespace in a top-level conjunct (none if it has a
    top-level OR or XOR, which could bypass the pin)."""
    if len(_depth_split(where, re.compile(r"\b(?:OR|XOR)\b", re.IGNORECASE))) > 1:
        return set()
    pinned = set()
    for conjunct in _depth_split(where, re.compile(r"\bAND\b", re.IGNORECASE)):
        if found := _PINNED.match(conjunct.strip()):
            pinned.add(found.group(1) or found.group(2))
    return pinned


def unscoped_parts(query: str) -> list[str]:
    """The patterns (and full-text calls) not tied to `$namespace`; empty when safe.

    >>> unscoped_parts("MATCH (e:Episode)-[:MENTIONS]->(n:Entity) WHERE n.namespace = $namespace "
    ...                "OPTIONAL MATCH (d:Decision)-[:ABOUT]->(n) RETURN e, d")
    []
    >>> unscoped_parts("MATCH (e:Episode) WHERE e.namespace = $namespace OR true RETURN count(e)")
    ['(e:Episode)']
    >>> unscoped_parts("MATCH (a:Entity) WHERE a.namespace = $namespace MATCH (b:Episode) RETURN count(b)")
    ['(b:Episode)']
    """
    text = visible_text(query)
    clauses = _clauses(text)
    safe: set[str] = set()
    unscoped: list[str] = []
    for i, (keyword, body) in enumerate(clauses):
        following = clauses[i + 1] if i + 1 < len(clauses) else ("", "")
        pinned = _pinned(following[1]) if following[0] == "WHERE" else set()
        if keyword in {"MATCH", "OPTIONAL MATCH"}:
            parts = [p.strip() for p in _depth_split(body, re.compile(r",")) if p.strip()]
            variables = [{a or b for a, b in _VARIABLE.findall(p)} for p in parts]
            pending = list(range(len(parts)))
            changed = True
            while changed:  # parts sharing a variable with a scoped part are scoped too
                changed = False
                for k in list(pending):
                    if variables[k] & (safe | pinned):
                        safe |= variables[k]
                        pending.remove(k)
                        changed = True
            unscoped += [parts[k] for k in pending]
        elif keyword == "YIELD" and re.search(r"fulltext\.querynodes", text, re.IGNORECASE):
            yielded = {v.strip().split()[-1] for v in body.split(",") if v.strip()}
            node = "node" if "node" in yielded else next(iter(sorted(yielded)), "")
            if node and node not in pinned:
                unscoped.append(f"YIELD {node}")
            safe |= yielded & pinned
    return unscoped

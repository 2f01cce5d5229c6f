"""Is every node an analyst query can reach tied to the caller's namespace?

The query is parsed with Neo4j's Cypher 5 grammar (`engine.analyst.grammar`) and its tree is
walked clause by clause, into every nested scope: `CALL { }` subqueries and UNION branches,
`EXISTS { }`, `COUNT { }`, `COLLECT { }`, pattern comprehensions, pattern predicates and
shortestPath. A pattern is *scoped* when one of its nodes is

- pinned: `v.namespace = $namespace` is a top-level conjunct of the WHERE of its own MATCH
  (or of the node's inline WHERE), or its property map holds `namespace: $namespace`; or
- a variable bound earlier, in this scope, to a node of a scoped pattern.

Relationships never cross namespaces, so every node of a scoped pattern is in the namespace.
Nodes inside a quantified path count as reached, never as the pin. Refused, with the reason:
a pattern not scoped; a clause that is not a read (writes, USE, LOAD CSV, administration
commands); a procedure inside a query (the schema ones are answered alone, from hindsight's
own schema, and the full-text index never: its scores and row order count the words of every
namespace); another parameter compared with `namespace`; what the grammar cannot parse.
Strict on purpose: a variable re-bound by UNWIND or an expression is no longer trusted, and
the error says how to write the query.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from antlr4.ParserRuleContext import ParserRuleContext

from engine.analyst.grammar import CypherSyntaxError, parse, rule_name
from engine.analyst.guard import READ_ONLY_PROCEDURES
from engine.analyst.tree import (
    all_named,
    children,
    conjuncts,
    descendants,
    first,
    has_token,
    item_names,
    parameters_but,
    variable_name,
)

__all__ = ["unscoped_parts"]

_READ_CLAUSES = frozenset(
    {"matchClause", "withClause", "unwindClause", "returnClause", "callClause",
     "subqueryClause", "orderBySkipLimitClause", "finishClause"}  # fmt: skip
)
_NAME = r"(?:[^\W\d]\w*|`(?:[^`]|``)+`)"
_PIN = re.compile(rf"^\(*(?:({_NAME})\.namespace=\$namespace|\$namespace=({_NAME})\.namespace)\)*$")
_ITERATIONS = frozenset({"listComprehension", "reduceExpression", "listItemsPredicate"})
_SUBQUERIES = frozenset({"existsExpression", "countExpression", "collectExpression"})


class _Refused(Exception):
    pass


def unscoped_parts(query: str) -> list[str]:
    """Why the query could read another namespace: empty when every part of it is scoped.

    >>> unscoped_parts("MATCH (e:Episode)-[:MENTIONS]->(n:Entity) WHERE n.namespace = $namespace "
    ...                "OPTIONAL MATCH (d:Decision)-[:ABOUT]->(n) RETURN e, d")
    []
    >>> unscoped_parts("MATCH (a:Episode) WHERE a.namespace = $namespace "
    ...                "RETURN COUNT { (b:Episode) } AS n")
    ['the pattern (b:Episode) in COUNT { } is not tied to $namespace']
    >>> unscoped_parts("MATCH (e:Episode) WHERE e.namespace = $namespace OR true RETURN count(e)")
    ['the pattern (e:Episode) in MATCH is not tied to $namespace']
    """
    try:
        tree = parse(query)
    except CypherSyntaxError as exc:
        return [f"it is not Cypher that hindsight can check ({exc})"]
    checker = _Checker(query)
    try:
        checker.statements(tree)
    except _Refused as exc:
        return [str(exc)]
    return checker.problems


def _pinned(expression: ParserRuleContext | None) -> set[str]:
    """Variables a WHERE pins with `v.namespace = $namespace` in a top-level conjunct."""
    if expression is None:
        return set()
    pinned = set()
    for text in conjuncts(expression):
        if found := _PIN.fullmatch(text):
            pinned.add(variable_name(found.group(1) or found.group(2)))
    return pinned


class _Checker:
    """Walks a parse tree; `scoped` is the set of variables bound to namespace-tied nodes."""

    def __init__(self, query: str) -> None:
        self.query = query
        self.problems: list[str] = []

    def text(self, context: ParserRuleContext) -> str:
        return self.query[context.start.start : context.stop.stop + 1]

    def refuse(self, reason: str) -> None:
        self.problems.append(reason)

    # Statements and queries

    def statements(self, tree: ParserRuleContext) -> None:
        statements = all_named(tree, "statement")
        if len(statements) != 1:
            raise _Refused("one statement at a time")
        statement = statements[0]
        query = first(statement, "regularQuery")
        if query is None or len(list(children(statement))) != 1:
            raise _Refused("only queries are allowed, not administration commands")
        self.regular_query(query, set(), imports=None)

    def regular_query(
        self, query: ParserRuleContext, scoped: set[str], imports: set[str] | None
    ) -> set[str]:
        """Each UNION branch from `scoped`; returns the variables every branch returns scoped.
        `imports`: a CALL subquery's outer scope, which only a leading WITH may import."""
        returned: set[str] | None = None
        for single in all_named(query, "singleQuery"):
            branch = self.single_query(single, set(scoped), imports)
            returned = branch if returned is None else returned & branch
        return returned or set()

    def single_query(
        self, query: ParserRuleContext, scoped: set[str], imports: set[str] | None
    ) -> set[str]:
        returned: set[str] = set()
        for position, clause in enumerate(all_named(query, "clause")):
            inner = next(children(clause))
            kind = rule_name(inner)
            if kind not in _READ_CLAUSES:
                raise _Refused(f"query_graph is read-only: {self.text(inner).split()[0]} is not allowed")
            if kind == "withClause" and position == 0 and imports is not None:
                scoped |= imports  # an importing WITH: what it projects comes from outside
            returned = getattr(self, kind)(inner, scoped)
        return returned

    # Clauses: each updates `scoped` in place; RETURN gives what it returns scoped

    def matchClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        where = first(clause, "whereClause")
        patterns = all_named(first(clause, "patternList") or clause, "pattern")
        self.patterns(patterns, scoped, _pinned(where), "MATCH")
        if where is not None:
            self.expression(where, scoped)
        for hint in all_named(clause, "hint"):
            self.expression(hint, scoped)
        return set()

    def withClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        body = first(clause, "returnBody")
        projected = self.projection(body, scoped) if body is not None else set()
        scoped.clear()
        scoped |= projected
        for part in children(clause):
            if rule_name(part) == "whereClause":
                self.expression(part, scoped)
        return set()

    def returnClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        body = first(clause, "returnBody")
        return self.projection(body, scoped) if body is not None else set()

    def projection(self, body: ParserRuleContext, scoped: set[str]) -> set[str]:
        """Walk a WITH or RETURN body; the variables it projects that stay scoped."""
        items = first(body, "returnItems")
        projected = set(scoped) if items is not None and has_token(items, "*") else set()
        for item in all_named(items, "returnItem") if items is not None else []:
            expression = first(item, "expression")
            if expression is not None:
                self.expression(expression, scoped)
            name, source = item_names(item)
            if name is None:
                continue
            projected.discard(name)
            if source is not None and source in scoped:
                projected.add(name)
        for part in children(body):
            if rule_name(part) != "returnItems":  # ORDER BY, SKIP, LIMIT
                self.expression(part, projected)
        return projected

    def unwindClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        expression = first(clause, "expression")
        if expression is not None:
            self.expression(expression, scoped)
        alias = first(clause, "variable")
        if alias is not None:
            scoped.discard(variable_name(alias.getText()))
        return set()

    def orderBySkipLimitClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        self.expression(clause, scoped)
        return set()

    def finishClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        return set()

    def callClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        """No procedure inside a query: a schema procedure is answered alone, from
        hindsight's schema (`engine.analyst.schema_procedures`), since the database's own answer
        describes every namespace."""
        name_context = first(clause, "procedureName")
        name = name_context.getText().replace("`", "").lower() if name_context else ""
        if name in READ_ONLY_PROCEDURES:
            self.refuse(f"CALL {name} must be called alone (e.g. CALL {name}() YIELD ...): "
                        "it is answered from hindsight's schema, not inside a query")  # fmt: skip
        else:
            self.refuse(f"CALL {name} is not an allowed procedure (allowed alone: "
                        f"{', '.join(sorted(READ_ONLY_PROCEDURES))})")  # fmt: skip
        return set()

    def subqueryClause(self, clause: ParserRuleContext, scoped: set[str]) -> set[str]:
        if first(clause, "subqueryInTransactionsParameters") is not None:
            raise _Refused("query_graph is read-only: CALL { } IN TRANSACTIONS is not allowed")
        scope = first(clause, "subqueryScope")
        if scope is None:
            start, imports = set(), set(scoped)
        elif has_token(scope, "*"):
            start, imports = set(scoped), None
        else:
            named = {variable_name(v.getText()) for v in all_named(scope, "variable")}
            start, imports = named & scoped, None
        query = first(clause, "regularQuery")
        returned = self.regular_query(query, start, imports) if query is not None else set()
        names = self.returned_names(query) if query is not None else set()
        scoped.difference_update(names)
        scoped |= returned
        return set()

    def returned_names(self, query: ParserRuleContext) -> set[str]:
        """Every name the RETURN clauses of a subquery's branches project."""
        names = set()
        for single in all_named(query, "singleQuery"):
            for clause in all_named(single, "clause"):
                inner = next(children(clause))
                body = first(inner, "returnBody") if rule_name(inner) == "returnClause" else None
                items = first(body, "returnItems") if body is not None else None
                for item in all_named(items, "returnItem") if items is not None else []:
                    if (name := item_names(item)[0]) is not None:
                        names.add(name)
        return names

    # Patterns

    def patterns(
        self, patterns: list[ParserRuleContext], scoped: set[str], pinned: set[str], where: str
    ) -> None:
        """Scope the comma-separated patterns of one clause; a pattern that shares a node with
        a scoped one is scoped too."""
        pending = list(patterns)
        changed = True
        while changed and pending:
            changed = False
            for pattern in list(pending):
                nodes, others, anchored = self.pattern_parts(pattern, scoped, pinned)
                if anchored:
                    scoped |= nodes | others
                    pending.remove(pattern)
                    changed = True
        for pattern in pending:
            self.refuse(f"the pattern {self.text(pattern)} in {where} is not tied to $namespace")
        for pattern in patterns:
            self.pattern_expressions(pattern, scoped)

    def pattern_parts(
        self, pattern: ParserRuleContext, scoped: set[str], pinned: set[str]
    ) -> tuple[set[str], set[str], bool]:
        """(node variables, relationship and path variables, whether a node anchors it)."""
        nodes: set[str] = set()
        others: set[str] = set()
        anchored = False
        for node, in_quantified in self.elements(pattern, False):
            kind = rule_name(node)
            variable = first(node, "variable")
            name = variable_name(variable.getText()) if variable is not None else None
            if kind == "pattern":  # the path variable of `p = (...)`
                if name is not None:
                    others.add(name)
                continue
            if in_quantified:
                continue  # group variables are lists of nodes, and a path may repeat 0 times
            if kind == "relationshipPattern":
                if name is not None:
                    others.add(name)
                continue
            if name is not None:
                nodes.add(name)
            if (name is not None and (name in scoped or name in pinned)) or self.pinned_inline(
                node, name
            ):
                anchored = True
        return nodes, others, anchored

    def elements(
        self, context: ParserRuleContext, in_quantified: bool
    ) -> Iterator[tuple[ParserRuleContext, bool]]:
        """Node and relationship patterns (and path variables), not those of nested
        expressions; flagged when inside a quantified path."""
        kind = rule_name(context)
        if kind in ("nodePattern", "relationshipPattern"):
            yield context, in_quantified
            return
        if kind == "pattern":
            yield context, in_quantified
        if kind == "parenthesizedPath":
            in_quantified = in_quantified or first(context, "quantifier") is not None
        for child in children(context):
            if rule_name(child) in ("expression", "whereClause", "properties", "variable"):
                continue
            yield from self.elements(child, in_quantified)

    def pinned_inline(self, node: ParserRuleContext, name: str | None) -> bool:
        properties = first(node, "properties")
        entries = first(properties, "map") if properties is not None else None
        if entries is not None:
            keys = all_named(entries, "propertyKeyName")
            values = all_named(entries, "expression")
            for key, value in zip(keys, values, strict=False):
                if key.getText() == "namespace" and value.getText() == "$namespace":
                    return True
        inline_where = first(node, "expression")
        return name is not None and name in _pinned(inline_where)

    def pattern_expressions(self, pattern: ParserRuleContext, scoped: set[str]) -> None:
        """Expressions inside a pattern: inline WHEREs, property maps, quantified paths."""
        for child in children(pattern):
            kind = rule_name(child)
            if kind in ("expression", "whereClause", "properties"):
                self.expression(child, scoped)
            elif kind != "variable":
                self.pattern_expressions(child, scoped)

    # Expressions

    def expression(self, context: ParserRuleContext, scoped: set[str]) -> None:
        """Find the patterns and subqueries nested anywhere in an expression."""
        kind = rule_name(context)
        if kind in _SUBQUERIES:
            self.subquery_expression(context, set(scoped), kind)
            return
        if kind == "patternComprehension":
            self.comprehension(context, set(scoped))
            return
        if kind in ("patternExpression", "shortestPathExpression"):
            label = "a pattern predicate" if kind == "patternExpression" else "shortestPath"
            self.patterns([context], set(scoped), set(), label)
            return
        if kind in ("expression8", "expression7", "map"):
            self.namespace_parameters(context)
        if kind in _ITERATIONS:  # `x IN list`: x is a list element here, not the outer x
            scoped = scoped - {variable_name(v.getText()) for v in all_named(context, "variable")}
        for child in children(context):
            self.expression(child, scoped)

    def subquery_expression(self, context: ParserRuleContext, scoped: set[str], kind: str) -> None:
        label = {"existsExpression": "EXISTS", "countExpression": "COUNT",
                 "collectExpression": "COLLECT"}[kind] + " { }"  # fmt: skip
        query = first(context, "regularQuery")
        if query is not None:  # outer variables are visible inside without importing
            self.regular_query(query, scoped, imports=None)
            return
        where = first(context, "whereClause")
        patterns = all_named(first(context, "patternList") or context, "pattern")
        self.patterns(patterns, scoped, _pinned(where), label)
        if where is not None:
            self.expression(where, scoped)

    def comprehension(self, context: ParserRuleContext, scoped: set[str]) -> None:
        path = first(context, "pathPatternNonEmpty")
        expressions = all_named(context, "expression")
        has_where = has_token(context, "WHERE")
        where = expressions[0] if has_where and expressions else None
        if path is not None:
            self.patterns([path], scoped, _pinned(where), "a pattern comprehension")
        variable = first(context, "variable")
        if variable is not None and path is not None:
            scoped.add(variable_name(variable.getText()))
        for expression in expressions:
            self.expression(expression, scoped)

    def namespace_parameters(self, context: ParserRuleContext) -> None:
        """Refuse giving `namespace` any parameter but `$namespace`, in a map or a comparison."""
        if rule_name(context) == "map":
            for key, value in zip(all_named(context, "propertyKeyName"), all_named(context, "expression"),
                                  strict=False):  # fmt: skip
                if key.getText() == "namespace" and parameters_but(value, "$namespace"):
                    self.refuse("namespace may only be given as $namespace, which hindsight binds")
            return
        if len(list(children(context))) < 2:
            return  # not a comparison: its parts are checked on their own
        properties = {p.getText().lstrip(".") for p in descendants(context, "property")}
        if "namespace" in properties and parameters_but(context, "$namespace"):
            self.refuse("namespace may only be compared with $namespace, which hindsight binds")

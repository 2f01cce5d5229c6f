"""Walking a Cypher parse tree (`engine.analyst.grammar`): a rule's child rules by name, its
tokens, the variable an expression is made of, the names a projection item binds, the
conjuncts of a WHERE, the parameters an expression uses."""

from __future__ import annotations

from collections.abc import Iterator

from antlr4.ParserRuleContext import ParserRuleContext
from antlr4.tree.Tree import TerminalNode

from engine.analyst.grammar import rule_name

__all__ = [
    "all_named", "bare_variable", "children", "conjuncts", "descendants", "first", "has_token",
    "item_names", "parameters_but", "variable_name",
]  # fmt: skip


def children(context: ParserRuleContext) -> Iterator[ParserRuleContext]:
    for child in context.getChildren():
        if not isinstance(child, TerminalNode):
            yield child


def first(context: ParserRuleContext, name: str) -> ParserRuleContext | None:
    return next((c for c in children(context) if rule_name(c) == name), None)


def all_named(context: ParserRuleContext, name: str) -> list[ParserRuleContext]:
    return [c for c in children(context) if rule_name(c) == name]


def descendants(context: ParserRuleContext, name: str) -> Iterator[ParserRuleContext]:
    for child in children(context):
        if rule_name(child) == name:
            yield child
        yield from descendants(child, name)


def has_token(context: ParserRuleContext, text: str) -> bool:
    return any(
        isinstance(c, TerminalNode) and c.getText().upper() == text for c in context.getChildren()
    )


def variable_name(text: str) -> str:
    if text.startswith("`"):
        return text[1:-1].replace("``", "`")
    return text


def bare_variable(expression: ParserRuleContext) -> str | None:
    """The variable an expression is made of alone (`a` in `WITH a AS b`), if it is one."""
    node = expression
    while True:
        children = list(node.getChildren())
        if rule_name(node) == "variable":
            return variable_name(node.getText())
        if len(children) != 1 or isinstance(children[0], TerminalNode):
            return None
        node = children[0]


def item_names(item: ParserRuleContext) -> tuple[str | None, str | None]:
    """(the name a WITH or RETURN item projects, the variable it projects alone, if any)."""
    expression = first(item, "expression")
    source = bare_variable(expression) if expression is not None else None
    alias = first(item, "variable")
    return (variable_name(alias.getText()) if alias is not None else source), source


def conjuncts(expression: ParserRuleContext) -> list[str]:
    """The texts of the top-level AND conjuncts; none when an OR or XOR sits at the top."""
    if rule_name(expression) == "whereClause":
        expression = first(expression, "expression") or expression
    ors = all_named(expression, "expression11")
    if len(ors) != 1:
        return []
    xors = all_named(ors[0], "expression10")
    if len(xors) != 1:
        return []
    return [c.getText() for c in all_named(xors[0], "expression9") if not has_token(c, "NOT")]


def parameters_but(context: ParserRuleContext, own: str) -> set[str]:
    """The parameters an expression uses, but `own`."""
    return {p.getText() for p in descendants(context, "parameter")} - {own}

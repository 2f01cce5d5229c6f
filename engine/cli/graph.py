"""`hindsight` commands for analysts: `cypher` (read-only queries, the saved ones by name) and
`graph` (a picture of an entity's neighbourhood). Registered on the main app by `engine.cli`."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from engine.cli.common import AsJson, DataDir, Namespace, console, fail, literal, open_memory
from graph_schema.definitions import TIME_PROPERTIES
from graph_schema.saved import saved_queries

__all__ = ["register"]


def cypher(
    query: Annotated[
        str | None,
        typer.Argument(help="A read-only Cypher query, or the name of a saved query (see --list)."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="A parameter as name=value; a JSON value (20, true, [..]) or text."),
    ] = None,
    namespace: Namespace = "default",
    list_saved: Annotated[bool, typer.Option("--list", help="List the saved queries and their parameters.")] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Run a read-only Cypher query in one namespace (`$namespace` is bound for you).

    Writes (CREATE, MERGE, SET, DELETE, REMOVE, LOAD CSV, write procedures) are refused.
    """
    saved = saved_queries()
    if list_saved:
        for found in saved.values():
            names = ", ".join(p for p in found.params if p != "namespace") or "-"
            console.print(f"[bold]{found.name}[/bold] (params: {names}; backends: "
                          f"{', '.join(found.backends)})\n  {found.description}")  # fmt: skip
        return
    if not query:
        fail("query: give a Cypher query or a saved query name (hindsight cypher --list)", 2)
    text = saved[query].text if query in saved else query
    params = _parse_params(param or [])
    with open_memory(data_dir) as memory:
        result = memory.cypher(text, params, namespace=namespace)
    objects = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
    if as_json:
        sys.stdout.write(json.dumps(objects, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table()
    for column in result.columns:  # a moment stays on one line; text wraps around it
        table.add_column(column, no_wrap=_is_moment(column))
    for row in result.rows:
        table.add_row(*(literal(_cell(value, column)) for value, column in zip(row, result.columns, strict=True)))
    console.print(table)
    if result.truncated:
        console.print(f"[yellow]truncated at {len(result.rows)} rows[/yellow]")


def _parse_params(items: list[str]) -> dict[str, Any]:
    """`name=value` pairs; the value is JSON when it parses as JSON, else the text itself.

    >>> _parse_params(["entity=atlas", "limit=5", "tags=[\\"a\\"]"])
    {'entity': 'atlas', 'limit': 5, 'tags': ['a']}
    """
    params: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            fail(f"--param: {item!r} is not name=value", 2)
        try:
            params[name] = json.loads(value)
        except json.JSONDecodeError:
            params[name] = value
    return params


def _is_moment(column: str) -> bool:
    return column.rsplit(".", 1)[-1] in TIME_PROPERTIES


def _cell(value: Any, column: str) -> str:
    """A value as a person reads it: a moment (a time property, by its column's name) in
    ISO 8601.

    >>> _cell(1788346440.0, "decided_at"), _cell(0.75, "confidence")
    ('2026-09-02T10:54:00Z', '0.75')
    """
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)[:120]
    if _is_moment(column) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{datetime.fromtimestamp(value, UTC):%Y-%m-%dT%H:%M:%SZ}"
    return "" if value is None else str(value)


def graph(
    entity: Annotated[str, typer.Argument(help="Entity name or alias.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="graph.html, graph.png or graph.svg.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
) -> None:
    """Draw an entity's neighbourhood: its latest episodes, decisions and facts."""
    from engine.picture import draw, neighbourhood

    if out.suffix.lower() not in {".html", ".png", ".svg"}:
        fail(f"--out: must end in .html, .png or .svg, got {out.name!r}", 2)
    with open_memory(data_dir) as memory:
        profile = memory.entity(entity, namespace=namespace)
    picture = neighbourhood(profile)
    draw(picture, out, title=f"{profile.entity.name} in {namespace}")
    console.print(f"wrote {literal(str(out))} ({picture.number_of_nodes()} nodes, {picture.number_of_edges()} edges)")


def register(app: typer.Typer) -> None:
    """Add these commands to the `hindsight` app."""
    app.command()(cypher)
    app.command()(graph)

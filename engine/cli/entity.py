"""`hindsight entity show|merge|alias`: an entity's profile, and the two corrections a person
makes to the graph. Registered on the main app by `engine.cli`."""

from __future__ import annotations

from typing import Annotated

import typer

from engine.cli.common import (
    AsJson,
    DataDir,
    Namespace,
    console,
    day,
    literal,
    open_memory,
    print_json,
    short,
)

__all__ = ["register"]

entity_app = typer.Typer(help="Look at entities, merge two, or teach one another name.")


@entity_app.command("show")
def entity_show(
    name: Annotated[str, typer.Argument(help="Entity name or alias.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """The entity, its aliases, a line of its facts, each fact (current, then closed),
    decisions and latest episodes."""
    from engine.fact_text import relation

    with open_memory(data_dir) as memory:
        profile = memory.entity(name, namespace=namespace)
    if as_json:
        print_json(profile)
        return
    entity = profile.entity
    console.print(f"[bold]{literal(entity.name)}[/bold] ({entity.type}, {entity.mention_count} mentions)")
    if entity.aliases:
        console.print("aliases: " + ", ".join(entity.aliases), markup=False)
    console.print(profile.summary, markup=False)
    for fact in profile.facts:
        console.print(f"fact: {relation(fact)} (support {fact.support}, confidence {fact.confidence:.2f})", markup=False)
    for fact in profile.closed_facts:
        console.print(f"closed: {relation(fact)} ({day(fact.valid_from)} to {day(fact.valid_to or 0.0)})", markup=False)
    for fact in profile.lessons:
        console.print(f"lesson: {fact.statement} (confidence {fact.confidence:.2f})", markup=False)
    for decision in profile.decisions:
        console.print(f"decision [{decision.status}]: {decision.text}", markup=False)
    for episode in profile.latest_episodes:
        console.print(f"{day(episode.occurred_at)}  {short(episode.content)}  [dim]{episode.id[:8]}[/dim]")


@entity_app.command("merge")
def entity_merge(
    keep: Annotated[str, typer.Argument(help="The entity that stays (name or alias).")],
    absorb: Annotated[str, typer.Argument(help="The entity folded into it.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Merge two entities that are one: mentions, decisions and facts move to KEEP."""
    with open_memory(data_dir) as memory:
        merged = memory.merge_entities(keep, absorb, namespace=namespace)
    if as_json:
        print_json(merged)
    else:
        console.print(f"merged into [bold]{literal(merged.name)}[/bold]; aliases: {literal(', '.join(merged.aliases))}")


@entity_app.command("alias")
def entity_alias(
    name: Annotated[str, typer.Argument(help="Entity name or alias.")],
    alias: Annotated[str, typer.Argument(help="Another name for it.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Teach memory another name for an entity."""
    with open_memory(data_dir) as memory:
        entity = memory.add_alias(name, alias, namespace=namespace)
    if as_json:
        print_json(entity)
    else:
        console.print(f"[bold]{literal(entity.name)}[/bold] is also: {literal(', '.join(entity.aliases))}")


def register(app: typer.Typer) -> None:
    """Add `hindsight entity ...` to the `hindsight` app."""
    app.add_typer(entity_app, name="entity")

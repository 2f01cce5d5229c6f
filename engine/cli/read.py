"""`hindsight` commands that read one thing: `get`, `explain`, `explain-fact`, `sessions`, `session`,
`namespaces`, `health`.
Registered on the main app by `engine.cli`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from engine.cli.common import (
    AsJson,
    DataDir,
    Namespace,
    console,
    day,
    fail,
    literal,
    open_memory,
    print_json,
)

if TYPE_CHECKING:
    from engine.views import SessionView

__all__ = ["register"]

EpisodeId = Annotated[str, typer.Argument(help="The episode id.")]
FactId = Annotated[str, typer.Argument(help="The fact id: a semantic card's id, or a fact's in an entity profile.")]


def get(id: EpisodeId, namespace: Namespace = "default", data_dir: DataDir = None,
        as_json: AsJson = False) -> None:  # fmt: skip
    """Show one episode, in any state (forgotten or expired too)."""
    with open_memory(data_dir) as memory:
        episode = memory.get(id, namespace=namespace)
    if as_json:
        print_json(episode)
        return
    console.print(f"[bold]{episode.id}[/bold] · {day(episode.occurred_at)} · {episode.kind}"
                  f"{f' by {literal(episode.role)}' if episode.role else ''} · importance "
                  f"{episode.importance:.2f}{' · forgotten' if episode.deleted_at else ''}")  # fmt: skip
    console.print(episode.content, markup=False)


def explain(id: EpisodeId, namespace: Namespace = "default", data_dir: DataDir = None,
            as_json: AsJson = False) -> None:  # fmt: skip
    """Why a memory exists: its entities, decisions, neighbours and where it came from."""
    with open_memory(data_dir) as memory:
        explanation = memory.explain(id, namespace=namespace)
    if as_json:
        print_json(explanation)
        return
    console.print(explanation.why, markup=False)
    if explanation.entities:
        console.print("entities: " + ", ".join(e.name for e in explanation.entities), markup=False)
    for decision in explanation.decisions:
        console.print(f"decision ({decision.status}): {decision.text}", markup=False)
    for neighbour in explanation.neighbours:
        via = f" ({neighbour.via})" if neighbour.via else ""
        console.print(f"{neighbour.relation}{via}: {neighbour.id[:8]} {neighbour.summary}", markup=False)
    for edge in explanation.resolutions:
        held = "" if edge.held else " (did not hold)"
        if edge.failure_id == id:
            console.print(f"fixed by: {edge.fix_id[:8]}{held}, found by the {edge.derived_by}", markup=False)
        else:
            console.print(f"fixed: {edge.failure_id[:8]}{held}, found by the {edge.derived_by}", markup=False)


def explain_fact(id: FactId, namespace: Namespace = "default", data_dir: DataDir = None,
                 as_json: AsJson = False) -> None:  # fmt: skip
    """Why the memory believes a fact: the rule that read it and what it read in each source."""
    with open_memory(data_dir) as memory:
        explanation = memory.explain_fact(id, namespace=namespace)
    if as_json:
        print_json(explanation)
        return
    console.print(explanation.why, markup=False)
    console.print(f"{explanation.rule}: {explanation.rule_about}", markup=False)
    for source in explanation.sources:
        read = f"{source.said}  [{' · '.join(source.words)}]" if source.said else "(not read again)"
        console.print(f"{source.episode_id[:8]} {read}", markup=False)


def sessions(namespace: Namespace = "default", limit: Annotated[int, typer.Option(help="How many.")] = 20,
             offset: Annotated[int, typer.Option(help="How many to skip.")] = 0,
             data_dir: DataDir = None, as_json: AsJson = False) -> None:  # fmt: skip
    """The sessions, the latest first, each with its digest (what it was about)."""
    with open_memory(data_dir) as memory:
        found = memory.sessions(namespace=namespace, limit=limit, offset=offset)
    if as_json:
        print_json(found)
        return
    if not found:
        console.print("no session holds an episode yet")
    for view in found:
        _print_session(view)


def session(session_id: Annotated[str, typer.Argument(help="The session id.")], namespace: Namespace = "default",
            data_dir: DataDir = None, as_json: AsJson = False) -> None:  # fmt: skip
    """One session and its digest."""
    with open_memory(data_dir) as memory:
        view = memory.session(session_id, namespace=namespace)
    if as_json:
        print_json(view)
    else:
        _print_session(view)


def _print_session(view: SessionView) -> None:
    stale = " · digest out of date (reflect rebuilds it)" if view.digest and view.stale else ""
    console.print(f"[bold]{literal(view.session_id)}[/bold] · {day(view.started_at.timestamp())} · "
                  f"{view.episodes} episodes{stale}")  # fmt: skip
    console.print(view.digest.text if view.digest else "(no digest yet: end_session or reflect writes one)",
                  markup=False)  # fmt: skip


def namespaces(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """The namespaces that hold episodes."""
    with open_memory(data_dir) as memory:
        names = memory.namespaces()
    if as_json:
        print_json(names)
    else:
        console.print("\n".join(names) if names else "no namespace holds an episode yet", markup=False)


def health(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """Whether both stores answer, with their counts; exit 1 when one does not."""
    with open_memory(data_dir) as memory:
        report = memory.health()
    if as_json:
        print_json(report)
    else:
        console.print(f"{report.status}: graph {report.graph}, vectors {report.vectors} "
                      f"({report.backend}); {report.episodes} episodes, "
                      f"{report.vector_points} vector points")  # fmt: skip
    if report.status != "ok":
        fail(report.detail or "a store does not answer", 1)


def register(app: typer.Typer) -> None:
    """Add these commands to the `hindsight` app."""
    for command in (get, explain, explain_fact, sessions, session, namespaces, health):
        app.command()(command)

"""`hindsight` commands that maintain a memory: reflect, maintain, restore, purge, archive,
audit, doctor, info, export and import. Registered on the main app by `engine.cli`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from engine.cli.common import (
    AsJson,
    DataDir,
    Namespace,
    console,
    day,
    fail,
    mapped_errors,
    open_memory,
    print_json,
    progress_bar,
    short,
)

__all__ = ["register"]

archive_app = typer.Typer(help="The cold archive: list archived episodes, bring one back.")


def reflect(
    namespace: Namespace = "default",
    force: Annotated[bool, typer.Option(help="Re-read every episode, not only the new ones.")] = False,
    once: Annotated[bool, typer.Option(
        help="One bounded run (reflection_batch_size episodes), as `hindsight serve` makes; "
        "by default runs follow each other until every new episode is read.")] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Derive semantic facts from the episodes stored since the last reflection (FACT edges
    between entities), with a progress bar; the sums of the runs when done."""
    from engine.lifecycle.catch_up import reflect_to_end

    with open_memory(data_dir) as memory:
        if once:
            summary, runs = memory.reflect(namespace=namespace, force=force), 1
        else:
            with progress_bar("reflecting: episodes read", None, not as_json) as advance:
                summary, runs = reflect_to_end(memory, namespace, force=force, advance=advance)
    if as_json:
        print_json(summary)
    else:
        console.print(
            f"{summary.status}: read {summary.episodes_seen} episodes"
            f"{f' in {runs} runs' if runs > 1 else ''}, {summary.clusters} clusters; facts "
            f"{summary.facts_written} new, {summary.facts_reinforced} reinforced, "
            f"{summary.facts_closed} closed"
        )


def maintain(namespace: Namespace = "default", data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """Archive expired, stale low-importance and over-capacity episodes."""
    with open_memory(data_dir) as memory:
        archived = memory.maintain(namespace=namespace)
    if as_json:
        print_json(archived)
    else:
        console.print(f"archived {len(archived)} episodes")


def restore(
    id: Annotated[str, typer.Argument(help="A forgotten or archived episode id.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Undo a forget, or bring an archived episode back."""
    with open_memory(data_dir) as memory:
        episode = memory.restore(id, namespace=namespace)
    if as_json:
        print_json(episode)
    else:
        console.print(f"restored {episode.id}: {short(episode.content)}")


def purge(
    ids: Annotated[list[str], typer.Argument(help="Episode ids to remove for good.")],
    namespace: Namespace = "default",
    yes: Annotated[bool, typer.Option("--yes", help="Really purge (default: a dry run).")] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Remove episodes from the graph, the vectors and the archive. Dry run unless --yes."""
    with open_memory(data_dir) as memory:
        report = memory.purge(ids, namespace=namespace, dry_run=not yes)
    if as_json:
        print_json(report)
        return
    verb = "would purge" if report.dry_run else "purged"
    console.print(f"{verb} {len(report.episodes)} episodes ({len(report.archived)} archived), "
                  f"{len(report.decisions)} decisions, {len(report.facts_removed)} facts; "
                  f"{len(report.facts_revised)} facts keep their other sources")  # fmt: skip
    for episode_id in report.episodes:
        console.print(f"  {episode_id}")
    if report.dry_run:
        console.print("nothing removed: run again with --yes")


@archive_app.command("list")
def archive_list(namespace: Namespace = "default", data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """Archived episodes of a namespace."""
    with open_memory(data_dir) as memory:
        episodes = memory.archived(namespace=namespace)
    if as_json:
        print_json(episodes)
        return
    for episode in episodes:
        console.print(f"{day(episode.occurred_at)}  {short(episode.content)}  [dim]{episode.id}[/dim]")


@archive_app.command("restore")
def archive_restore(
    id: Annotated[str, typer.Argument(help="An archived episode id.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Bring an archived episode back into the hot stores."""
    restore(id, namespace, data_dir, as_json)


def audit(
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", help="One namespace.")] = None,
    limit: Annotated[int, typer.Option(help="How many entries.")] = 50,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """The audit log: every change of state, newest first."""
    with open_memory(data_dir) as memory:
        entries = memory.audit(namespace=namespace, limit=limit)
    if as_json:
        print_json(entries)
        return
    for entry in entries:
        ids = ", ".join(i[:8] for i in entry.ids[:5]) + ("..." if len(entry.ids) > 5 else "")
        console.print(f"{day(entry.at)}  {entry.actor:<12} {entry.action:<15} "
                      f"{entry.namespace or '-':<12} {ids}  {entry.reason or ''}", markup=False)  # fmt: skip


def doctor(
    repair: Annotated[bool, typer.Option("--repair", help="Rebuild the vector mirror from the graph.")] = False,
    rebuild_vectors: Annotated[bool, typer.Option(
        "--rebuild-vectors",
        help="Set the vector store aside (kept under the data directory) and rebuild it all from "
             "the graph: for one that no longer opens.",
    )] = False,  # fmt: skip
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Check that graph and vector store agree; exit 1 when they do not (and were not repaired)."""
    with progress_bar("re-embedding", None, (repair or rebuild_vectors) and not as_json) as advance:
        if rebuild_vectors:
            from engine.rebuild import rebuild_vectors as rebuild_all

            with mapped_errors():
                report = rebuild_all(data_dir, progress=advance, actor="cli")
        else:
            with open_memory(data_dir) as memory:
                report = memory.doctor(repair=repair, progress=advance)
    if as_json:
        print_json(report)
    else:
        if report.set_aside is not None:
            console.print(f"the old vector store is kept at {report.set_aside}", markup=False)
        console.print(f"{report.episodes} episodes, {report.vector_points} vector points, "
                      f"{report.facts} active facts")
        for label, ids in (("missing vectors", report.missing_vectors),
                           ("orphan vectors", report.orphan_vectors),
                           ("wrong payloads", report.wrong_payloads),
                           ("stale keyword keys", report.stale_keys),
                           ("facts without a point", report.missing_fact_points),
                           ("fact points without a fact", report.orphan_fact_points)):  # fmt: skip
            console.print(f"{label}: {len(ids)}")
        console.print("repaired" if report.repaired else "ok" if report.ok else "disagree: run with --repair")
    if not report.ok and not report.repaired:
        raise typer.Exit(1)


def info(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """The machine, what the settings choose on it and why, and the installed packages."""
    from engine.machine import machine_report
    from engine.settings import Settings

    with mapped_errors():
        settings = Settings() if data_dir is None else Settings(data_dir=data_dir)
        report = machine_report(settings)
    if as_json:
        print_json(report)
        return
    memory = f", {report.memory_gb} GB" if report.memory_gb else ""
    console.print(f"{report.cpu}: {report.cores} cores{memory}; Python {report.python}, {report.platform}")
    for choice in report.choices:
        console.print(f"  {choice.name:<24} {choice.value:<28} [dim]{choice.why}[/dim]")
    missing = [name for name, version in report.packages.items() if version is None]
    console.print("  " + ", ".join(f"{n} {v}" for n, v in report.packages.items() if v))
    if missing:
        console.print(f"  not installed: {', '.join(missing)}")


# Repeatable: `--namespace a --namespace b`; none means every namespace.
Namespaces = Annotated[
    list[str] | None,
    typer.Option("--namespace", help="Only this namespace (repeat the option for more)."),
]


def export(
    file: Annotated[Path, typer.Argument(help="Where to write the JSON Lines export.")],
    with_embeddings: Annotated[bool, typer.Option(help="Include the dense vectors.")] = False,
    namespace: Namespaces = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Export every namespace, or those named by --namespace, with their archive, as
    portable JSON Lines."""
    with open_memory(data_dir) as memory:
        summary = memory.export(file, with_embeddings=with_embeddings, namespaces=namespace)
    if as_json:
        print_json(summary)
    else:
        console.print(f"exported {summary.nodes} nodes, {summary.relationships} relationships, "
                      f"{summary.archived} archived, {summary.vectors} vectors to {file}")  # fmt: skip


def import_(
    file: Annotated[Path, typer.Argument(help="A file written by `hindsight export`.")],
    namespace: Namespaces = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Import an export into an empty memory, or only the namespaces named by --namespace
    into a memory where they are empty."""
    if not os.path.isfile(file):  # False, not OSError, for a name too long to look up
        fail(f"file: {str(file)[:200]} is no file", 2)
    with open_memory(data_dir) as memory:
        summary = memory.import_(file, namespaces=namespace)
    if as_json:
        print_json(summary)
    else:
        console.print(f"imported {summary.nodes} nodes, {summary.relationships} relationships, "
                      f"{summary.archived} archived; {summary.vectors} vectors")  # fmt: skip


def register(app: typer.Typer) -> None:
    """Add these commands to the `hindsight` app."""
    for command in (reflect, maintain, restore, purge, audit, doctor, info, export):
        app.command()(command)
    app.command("import")(import_)
    app.add_typer(archive_app, name="archive")

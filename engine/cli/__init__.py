"""The `hindsight` command line: each command opens the memory, calls one façade method and
renders the result. `--json` prints stable machine-readable output (documented in README)."""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.table import Table

from engine.cli.admin import register
from engine.cli.common import (
    AsJson,
    DataDir,
    Namespace,
    console,
    day,
    err_console,
    fail,
    literal,
    mapped_errors,
    open_memory,
    print_json,
    progress_bar,
    short,
)
from engine.cli.entity import register as register_entity
from engine.cli.graph import register as register_graph
from engine.cli.read import register as register_reads
from engine.cli.render import cards_table, tally
from engine.demo import DEMO_FACT_QUERY, DEMO_PERSON, DEMO_QUERIES, sample_episodes
from engine.errors import InvalidInput, WriteFailed

if TYPE_CHECKING:
    from engine.memory import Memory
    from engine.settings import Settings
    from mcp_server.server import Transport

app = typer.Typer(
    help="hindsight: memory for LLM agents that recalls with reasons.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
@app.command()
def store(
    content: Annotated[str, typer.Argument(help="The text to remember.")],
    namespace: Namespace = "default",
    session_id: Annotated[str | None, typer.Option("--session", help="Session id.")] = None,
    role: Annotated[str | None, typer.Option(help="Who said it (user, assistant, a tool).")] = None,
    kind: Annotated[str, typer.Option(help="message, tool_call, task, observation or document.")] = "message",
    importance: Annotated[str | None, typer.Option(help="0..1 or high, medium, low.")] = None,
    occurred_at: Annotated[str | None, typer.Option(help="When it happened (ISO 8601).")] = None,
    outcome: Annotated[str | None, typer.Option(help="How a tool call or task ended: success or failure.")] = None,
    resolves: Annotated[list[str] | None, typer.Option(help="The id of a failure this fixed (repeat for more).")] = None,
    task_id: Annotated[str | None, typer.Option("--task", help="The stored task this is a step of.")] = None,
    layer: Annotated[str, typer.Option(help="episodic, or semantic for a lesson you state.")] = "episodic",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Store one episode."""
    with open_memory(data_dir) as memory:
        result = memory.store(
            content,
            namespace=namespace,
            session_id=session_id,
            role=role,
            kind=kind,
            importance=_number_or_level(importance),
            occurred_at=occurred_at,
            outcome=outcome,
            resolves=resolves,
            task_id=task_id,
            layer=layer,
        )
    if as_json:
        print_json(result)
    elif result.status == "skipped":
        console.print(
            f"skipped: low importance ({result.importance}); nothing stored. "
            "Pass --importance to keep it anyway."
        )
    elif result.status == "duplicate":
        console.print(f"duplicate of [bold]{result.id}[/bold]: seen again, not stored twice")
    else:
        console.print(f"stored [bold]{result.id}[/bold] (importance {result.importance})")
        if result.chunk_ids:
            console.print(f"chunks: {len(result.chunk_ids)}")
        if result.entities:
            console.print("entities: " + ", ".join(result.entities), markup=False)
        for decision in result.decisions:
            console.print(f"decision: {decision}", markup=False)


@app.command("store-task")
def store_task(
    file: Annotated[Path, typer.Argument(help="JSON: {\"task\": ..., \"steps\": [...], \"outcome\": ...}.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Store a task run from a JSON file: the task, its steps in order (each with the keys of
    `store`: content, role, outcome...) and how it ended; all or nothing."""
    body = _read_json(file)
    task, steps = body.pop("task", None), body.pop("steps", None)
    with open_memory(data_dir) as memory:
        result = memory.store_task(task, steps, namespace=namespace, **body)
    if as_json:
        print_json(result)
        return
    console.print(f"stored task [bold]{result.task.id}[/bold] with {len(result.steps)} steps")
    for index, step in enumerate(result.steps):
        console.print(f"  step {index}: {step.id} ({step.status})")


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="JSON Lines: one object per line with the keys of `store`.")],
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Store every episode of a JSONL file, in batches, with a progress bar; then say how
    many were stored, seen before, kept in working memory only, and failed."""
    items, numbers = _read_jsonl(file)
    handled = [0]

    def counted(done: int) -> None:
        handled[0] = done
        advance(done)

    with open_memory(data_dir) as memory, progress_bar("storing", len(items), not as_json) as advance:
        try:
            results = memory.store_many(items, progress=counted)
        except InvalidInput as exc:
            raise _on_line(exc, numbers) from None
        except WriteFailed as exc:
            failed = len(items) - handled[0]
            fail(f"{exc}. Of {len(items)} lines, {handled[0]} were handled before the failing "
                 f"batch and {failed} failed (from line {numbers[handled[0]]}); ingest the file "
                 "again to finish: what is stored is recognised as a duplicate", 1)  # fmt: skip
    if as_json:
        print_json(results)
    else:
        console.print(f"{len(items)} lines of {literal(str(file))}: {tally(results)}")


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="A question or topic.")],
    namespace: Namespace = "default",
    top_k: Annotated[int, typer.Option("--top-k", "-k", help="How many cards at most.")] = 5,
    min_score: Annotated[float | None, typer.Option(help="Drop cards scoring below this.")] = None,
    session_id: Annotated[str | None, typer.Option("--session", help="Prefer this session's latest episodes.")] = None,
    now: Annotated[str | None, typer.Option(help="Ask as of this time (ISO 8601).")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="A budget for the cards' content, in words.")] = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Recall memories for a query, with the trace of why each was found."""
    with open_memory(data_dir) as memory:
        cards = memory.recall(
            query, namespace=namespace, top_k=top_k, min_score=min_score, session_id=session_id,
            now=now, max_tokens=max_tokens,
        )  # fmt: skip
    if as_json:
        print_json(cards)
    else:
        console.print(cards_table(query, cards))


@app.command("list")
def list_(
    namespace: Namespace = "default",
    session_id: Annotated[str | None, typer.Option("--session", help="Only this session.")] = None,
    limit: Annotated[int, typer.Option(help="How many at most.")] = 20,
    offset: Annotated[int, typer.Option(help="Skip this many.")] = 0,
    include_deleted: Annotated[bool, typer.Option(help="Show soft-deleted episodes too.")] = False,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """List episodes, newest first."""
    with open_memory(data_dir) as memory:
        episodes = memory.list(
            namespace=namespace,
            session_id=session_id,
            limit=limit,
            offset=offset,
            include_deleted=include_deleted,
        )
    if as_json:
        print_json(episodes)
        return
    table = Table("id", "occurred", "session", "role", "importance", "content")
    for e in episodes:
        table.add_row(e.id, day(e.occurred_at), literal(e.session_id or ""), literal(e.role or ""), f"{e.importance:.2f}",
                      short(e.content))
    console.print(table)


@app.command()
def forget(
    id: Annotated[str, typer.Argument(help="The episode id.")],
    namespace: Namespace = "default",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Soft-delete an episode: kept for audit, never recalled again."""
    with open_memory(data_dir) as memory:
        episode = memory.forget(id, namespace=namespace)
    if as_json:
        print_json(episode)
    else:
        console.print(f"forgot {episode.id}")


@app.command()
def stats(
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", help="One namespace (default: all).")] = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Count live episodes, entities, decisions and facts."""
    with open_memory(data_dir) as memory:
        counts = memory.stats(namespace=namespace)
    if as_json:
        print_json(counts)
    else:
        for key in ("episodes", "entities", "decisions", "facts"):
            console.print(f"{key:>10}: {getattr(counts, key)}")
        if counts.graph_reads is not None:
            console.print(f"{'graph':>10}: read by {'its in-process index' if counts.graph_reads == 'index' else 'statements'}")


@app.command()
def demo(
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Keep the demo memory here (default: a temporary directory).")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Store a sample multi-session conversation and show recall with traces."""
    from engine.fact_text import relation
    from engine.lifecycle.catch_up import reflect_to_end

    items = sample_episodes()
    with tempfile.TemporaryDirectory(prefix="hindsight-demo-") as scratch:
        where = data_dir or Path(scratch)
        with open_memory(where) as memory:
            with progress_bar("storing", len(items), not as_json) as advance:
                results = memory.store_many(
                    [{**i, "namespace": "demo"} for i in items], progress=advance
                )
            with progress_bar("reflecting: episodes read", None, not as_json) as advance:
                reflected, _ = reflect_to_end(memory, "demo", force=False, advance=advance)
            person = memory.entity(DEMO_PERSON, namespace="demo")
            answers = {
                q: memory.recall(q, namespace="demo", top_k=3, now="2026-11-29T12:00:00Z")
                for q in DEMO_QUERIES
            }
            facts = memory.recall(DEMO_FACT_QUERY, namespace="demo", layer="semantic", top_k=2)
            counts = memory.stats(namespace="demo")
    if as_json:
        sys.stdout.write(
            json.dumps(
                {q: [c.model_dump(mode="json") for c in cards]
                 for q, cards in [*answers.items(), (DEMO_FACT_QUERY, facts)]},  # fmt: skip
                ensure_ascii=False,
                indent=2,
            )
            + "\n"
        )
        return
    console.print(
        f"{len(items)} turns: {tally(results)}. The graph holds {counts.entities} entities "
        f"and {counts.decisions} active decisions "
        f"(data in {where}{' (temporary)' if data_dir is None else ''})."
    )
    console.print(f"Reflection wrote {reflected.facts_written} facts and closed {reflected.facts_closed}. "
                  f"{person.summary}", markup=False)  # fmt: skip
    for fact in person.closed_facts:
        console.print(f"  closed on {day(fact.valid_to or 0.0)}: {relation(fact)} (said {day(fact.valid_from)})", markup=False)
    for query, cards in answers.items():
        console.print(cards_table(query, cards))
    console.print(cards_table(f"{DEMO_FACT_QUERY} (semantic memory)", facts))


@app.command()
def serve(
    transport: Annotated[
        str,
        typer.Option(help="streamable-http (default), sse, or stdio for a client that spawns it."),
    ] = "streamable-http",
    host: Annotated[str | None, typer.Option(help="HTTP bind address (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port (default 8765).")] = None,
    namespace: Annotated[
        str,
        typer.Option(
            "--namespace", "-n", help="Namespace of calls that name none (the only one on stdio)."
        ),
    ] = "default",
    data_dir: DataDir = None,
) -> None:
    """Run the server (MCP and, over HTTP, the REST API); print the MCP client configuration."""
    from engine.inputs import check_namespace
    from engine.settings import settings_at
    from mcp_server.opening import OpeningMemory
    from mcp_server.server import Transport, run

    if transport not in ("streamable-http", "sse", "stdio"):
        fail(f"--transport: must be streamable-http, sse or stdio, got {transport!r}", 2)
    try:
        check_namespace(namespace)
    except ValueError as exc:
        fail(f"--namespace: {exc}", 2)
    chosen = cast(Transport, transport)
    overrides = {k: v for k, v in {"host": host, "port": port}.items() if v is not None}
    if chosen == "stdio":
        # A client spawns this for every chat: answer `initialize` while the engine opens.
        with mapped_errors():
            settings = settings_at(data_dir, None).model_copy(update=overrides)
        memory = OpeningMemory(lambda: _opened(settings))
        try:
            _announce(chosen, settings, namespace)
            run(cast("Memory", memory), settings, transport=chosen, default_namespace=namespace)
        finally:
            memory.close()
        return
    with open_memory(data_dir, serving=True) as opened:
        settings = opened.settings.model_copy(update=overrides)
        _announce(chosen, settings, namespace)
        run(opened, settings, transport=chosen, default_namespace=namespace)


def _opened(settings: Settings) -> Memory:
    """The memory, opened on the stdio server's opening thread, which also imports the engine
    (~0.3 s): the main thread meanwhile imports the MCP SDK and answers `initialize`."""
    from engine.memory import Memory

    return Memory.open(settings=settings)


def _announce(transport: Transport, settings: Settings, namespace: str) -> None:
    """Print the MCP client configuration (and the REST address over HTTP); on stdio, where
    stdout carries the protocol, to stderr."""
    from mcp_server.snippet import client_config

    snippet = client_config(transport, settings, namespace=namespace, data_dir=settings.data_dir)
    out = err_console if transport == "stdio" else console
    out.print("MCP client configuration:", style="bold")
    out.print(snippet, markup=False, highlight=False, soft_wrap=True)
    if transport != "stdio":
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
        out.print(f"REST API: http://{host}:{settings.port}/v1 (docs at /docs)", markup=False, highlight=False)


def _number_or_level(value: str | None) -> float | str | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return value


def _read_json(file: Path) -> dict[str, Any]:
    """A JSON object from a file, or a usage error naming the file and what is wrong."""
    try:
        body = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"file: cannot read {file}: {exc}", 2)
    except json.JSONDecodeError as exc:
        fail(f"file: not valid JSON ({exc.msg}, line {exc.lineno})", 2)
    if not isinstance(body, dict):
        fail("file: must hold one JSON object with task and steps", 2)
    allowed = {"task", "steps", "outcome", "session_id", "role", "importance", "occurred_at", "metadata"}
    unknown = sorted(set(body) - allowed)
    if unknown:
        fail(f"{unknown[0]}: no such key of a task (keys: {', '.join(sorted(allowed))})", 2)
    return body


def _read_jsonl(file: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The objects of a JSONL file and the line number of each (blank lines skipped)."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"file: cannot read {file}: {exc}", 2)
    items, numbers = [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            fail(f"line {number}: not valid JSON ({exc.msg})", 2)
        if not isinstance(item, dict):
            fail(f"line {number}: must be a JSON object with the keys of `store`", 2)
        items.append(item)
        numbers.append(number)
    return items, numbers


def _on_line(exc: InvalidInput, numbers: list[int]) -> InvalidInput:
    """items[3].importance -> line 5: importance."""
    match = re.match(r"items\[(\d+)\]\.?(.*)", exc.field)
    if match is None or int(match.group(1)) >= len(numbers):
        return exc
    return InvalidInput(f"line {numbers[int(match.group(1))]}: {match.group(2) or 'item'}", exc.reason)


register(app)
register_entity(app)
register_graph(app)
register_reads(app)

if __name__ == "__main__":  # pragma: no cover
    app()

"""What every `hindsight` command shares: consoles, option types, error mapping, JSON out."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape

from engine.errors import HindsightError, InvalidInput, NotFound

if TYPE_CHECKING:
    from engine.memory import Memory

# The engine (models, stores, settings) is imported by the commands that use it, not here:
# `hindsight --help` and a bad argument answer before any of it loads.

__all__ = [
    "AsJson",
    "DataDir",
    "Namespace",
    "console",
    "day",
    "err_console",
    "fail",
    "literal",
    "mapped_errors",
    "open_memory",
    "print_json",
    "progress_bar",
    "short",
]

console = Console()
err_console = Console(stderr=True)

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Data directory (default: $HINDSIGHT_DATA_DIR or ./hindsight-data)."),
]
Namespace = Annotated[str, typer.Option("--namespace", "-n", help="Namespace to read or write.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def fail(message: str, code: int) -> NoReturn:
    err_console.print(f"[red]error:[/red] {escape(message)}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def settings_problem(exc: ValidationError) -> str:
    """A settings error as one line per problem, naming the variable to fix and the rule.

    >>> from engine.settings import Settings
    >>> try:
    ...     Settings(port=0)
    ... except ValidationError as exc:
    ...     print(settings_problem(exc))
    HINDSIGHT_PORT: Input should be greater than 0
    """
    from engine.settings import Settings
    from engine.settings.doc import env_names

    lines = []
    for error in exc.errors():
        named = str(error["loc"][0]) if error["loc"] else ""
        field = next((name for name in Settings.model_fields
                      if named.lower() in {name, *map(str.lower, env_names(Settings, name))}), None)  # fmt: skip
        variable = env_names(Settings, field)[0] if field else named or "settings"
        lines.append(f"{variable}: {str(error['msg']).removeprefix('Value error, ')}")
    return "\n".join(lines)


@contextmanager
def mapped_errors() -> Iterator[None]:
    """hindsight's errors as messages and exit codes, in one place; a settings error (from
    the environment or .env) as one line naming the variable, exit 2."""
    try:
        yield
    except ValidationError as exc:
        if exc.title != "Settings":
            raise
        fail(settings_problem(exc), 2)
    except InvalidInput as exc:
        fail(str(exc), 2)
    except NotFound as exc:
        fail(str(exc), 3)
    except HindsightError as exc:
        fail(str(exc), 1)


@contextmanager
def open_memory(data_dir: Path | None, *, serving: bool = False) -> Iterator[Memory]:
    """Open the memory, its errors mapped (`mapped_errors`). `serving`: for `serve`, the one
    command that lives long and recalls often."""
    from engine.memory import Memory
    from engine.settings import Settings

    with mapped_errors():
        settings = Settings()
        if not serving:
            # A command is a process of its own, with one recall at most: reading the graph's
            # MENTIONS index for it would cost more than it saves (0.6-1.6 s at 35k episodes,
            # against ~7 ms a recall).
            settings = settings.model_copy(update={"graph_index_episodes": 0})
        with Memory.open(data_dir, settings) as memory:
            memory.actor = "cli"
            yield memory


@contextmanager
def progress_bar(label: str, total: int | None, visible: bool) -> Iterator[Callable[..., None]]:
    """A bar on stderr, gone when done (none when not `visible`, as with --json); yields
    `advance(done, total=None)`: a total learnt on the way replaces the one given."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err_console, disable=not visible, transient=True,
    )  # fmt: skip
    with bar:
        task = bar.add_task(label, total=total)

        def advance(done: int, total: int | None = None) -> None:
            bar.update(task, completed=done, total=total)  # None leaves the total as it is

        yield advance


def print_json(value: BaseModel | list[Any]) -> None:
    data: Any
    if isinstance(value, list):
        data = [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
    else:
        data = value.model_dump(mode="json")
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def day(epoch: float) -> str:
    return f"{datetime.fromtimestamp(epoch, UTC):%Y-%m-%d %H:%M}"


def short(text: str, limit: int = 80) -> str:
    """Stored text cut to `limit` characters, printed as written (`literal`)."""
    return literal(text if len(text) <= limit else text[: limit - 1] + "…")


def literal(text: str) -> str:
    """Stored text as it reads, for a line or a cell that uses markup elsewhere: "[/b]" in a
    memory would stop the print, "[red]" would colour it.

    >>> print(literal("Sam: [image: a photo] [/b]"))
    Sam: \\[image: a photo] \\[/b]
    """
    return escape(text)

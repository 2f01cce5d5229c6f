"""The CLI prints stored text as it was written. Memories, roles, session ids, entity names
and error messages are data, not markup: random texts full of brackets ("[/b]", "[red]",
"[link=...]") must neither stop a command nor lose their brackets."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.cli.common import console

runner = CliRunner()
# Tokens rich would read as markup, and plain words around them. None holds a space, so a
# table may wrap a line between tokens but never inside one.
_MARKUP = ["[/b]", "[red]", "[/red]", "[bold]", "[/]", "[link=https://x.test]", "[dim]", "[@click]", "\\[", "]"]
_WORDS = ["Atlas", "launch", "moved", "Priya", "signed", "the", "contract", "yesterday", "image:"]


def _texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_MARKUP if rng.random() < 0.4 else _WORDS) for _ in range(rng.randint(4, 10)))
            + f" note{n}" for n in range(count)]  # fmt: skip


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _markup_in(text: str) -> list[str]:
    return [token for token in text.split() if token in _MARKUP]


def test_every_readable_command_prints_stored_brackets_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "width", 400)  # a table folds a long token at its column's width
    data = str(tmp_path / "d")
    texts = _texts(7, 6)
    ids = []
    for n, text in enumerate(texts):
        code, out, err = run("store", text, "--role", "[b]Ann", "--session", f"[s{n % 2}]", "--importance", "high",
                             "--data-dir", data, "--json")  # fmt: skip
        assert code == 0, err
        ids.append(json.loads(out)["id"])
    commands = [
        ("list", "--data-dir", data),
        ("recall", "Atlas launch contract", "-k", "10", "--data-dir", data),
        ("sessions", "--data-dir", data),
        ("cypher", "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e.content", "--data-dir", data),
        *[("get", i, "--data-dir", data) for i in ids],
        *[("explain", i, "--data-dir", data) for i in ids],
        ("entity", "show", "Atlas", "--data-dir", data),
        ("audit", "--data-dir", data),
    ]
    printed = {}
    for command in commands:
        code, out, err = run(*command)
        assert code == 0, (command, err)
        printed[command[:2]] = out
    # Where a command prints a text whole, every bracketed token of it is there as written.
    for n, (text, episode_id) in enumerate(zip(texts, ids, strict=True)):
        shown = printed[("get", episode_id)]
        assert text in shown and "[b]Ann" in shown
        for out in (shown, printed[("cypher", commands[3][1])], printed[("recall", "Atlas launch contract")]):
            if f"note{n}" in out:  # the recall may not show them all
                assert all(token in out for token in _markup_in(text)), (text, out)


def test_an_error_naming_bracketed_input_is_one_clear_line(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    code, _, err = run("entity", "show", "[/b]Nobody[red]", "--data-dir", data)
    assert code == 3 and "[/b]Nobody[red]" in err and "not found" in err

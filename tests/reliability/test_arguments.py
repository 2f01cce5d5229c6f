"""Every argument of every entry point, driven with what breaks naive code: integers past any
range, NaN and infinities, lone surrogates, NUL, huge text, nesting 5,000 deep, wrong types.

The entry points are found, not listed: every public method of `Memory`, every MCP tool's
input schema, every operation and field of the REST API's OpenAPI document, every CLI
command's options. A new method, tool, operation or option is driven the day it appears (the
engine cases fail until it has a sensible call to start from). Each call answers or refuses
naming the argument (`InvalidInput`, a tool error, a 4xx problem, exit 2); never a raw
exception, an "internal error" or a 5xx; and a refused call stores nothing. On both graph
backends.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from starlette.testclient import TestClient
from typer.main import get_command
from typer.testing import CliRunner

from engine import Memory
from engine.cli import app
from engine.errors import AccessDenied, InvalidInput, NotFound, ReadOnlyViolation
from mcp_server.server import build_server
from tests.backends import BACKENDS, open_settings
from tests.serving import in_process

NOWHERE = "00000000-0000-4000-8000-000000000000"  # an id no episode has


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


HOSTILE: list[Any] = [
    10**400, -(10**400), 2**64, -(2**63) - 1, float("nan"), float("inf"), -float("inf"), 1e308, -1, 0, True,
    "\ud800", "ok \udfff", "a\x00b", "x" * 100_001, "", "   ", b"bytes", [], {}, ["\ud800"], [10**400],
    {"k": 10**400}, {"k\x00": 1}, _nested(5_000), object(),
]  # fmt: skip
# What a JSON document can carry (big integers, NUL, nesting), surrogates as raw escapes.
HOSTILE_JSON = ["1" + "0" * 400, "-1" + "0" * 400, "18446744073709551616", "1e400", "-1", "0", "true",
                '"\\ud800"', '"ok \\udfff"', '"a\\u0000b"', json.dumps("x" * 100_001), '""', '"   "', "[]", "{}",
                '["\\ud800"]', "[" + "1" + "0" * 400 + "]", '{"k\\u0000": 1}', '{"a": ' * 40 + "1" + "}" * 40,
                "null"]  # fmt: skip
# The same in a URL, percent-encoded: invalid UTF-8 (a surrogate's bytes), NUL, past any range.
HOSTILE_URL = ["1" + "0" * 400, "-1", "nan", "inf", "1e400", "%ED%A0%80", "ok%20%ED%B0%80", "a%00b", "x" * 4_000,
               "", "%20%20", "%5B%5D", "%7B%7D", "true", "%FF%FE"]  # fmt: skip

# A call of each public method that works, which the cases then spoil one argument at a time.
WRITES = {"store", "store_many", "store_task", "end_session", "forget", "restore", "purge", "import_",
          "merge_entities", "add_alias", "reflect", "maintain"}  # fmt: skip


def _starting_calls(ids: dict[str, str], tmp: Path) -> dict[str, dict[str, Any]]:
    return {
        "store": {"content": "Mara restarted the ingest worker."},
        "store_many": {"items": [{"content": "Mara checked the queue."}]},
        "store_task": {"task": "rotate the keys", "steps": [{"content": "vault write ok", "outcome": "success"}]},
        "end_session": {"session_id": "s-end"},
        "recall": {"query": "ingest worker"},
        "get": {"id": ids["chat"]},
        "explain": {"id": ids["chat"]},
        "explain_fact": {"id": NOWHERE},
        "entity": {"name": "Mara"},
        "cypher": {"query": "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN count(e) AS n"},
        "list": {},
        "sessions": {},
        "session": {"session_id": "s1"},
        "stats": {},
        "health": {},
        "reflect": {},
        "maintain": {},
        "forget": {"id": NOWHERE},
        "restore": {"id": NOWHERE},
        "purge": {"ids": [NOWHERE]},
        "namespaces": {},
        "archived": {},
        "audit": {},
        "doctor": {},
        "export": {"path": tmp / "export.jsonl"},
        "import_": {"path": tmp / "missing.jsonl"},
        "merge_entities": {"keep": "Mara", "absorb": "Marra"},
        "add_alias": {"entity": "Mara", "alias": "M."},
        "optimize": {},
        "warm": {},
    }


NOT_CALLED = {"close", "open", "connect"}  # they end or begin the memory itself


@pytest.fixture(scope="module", params=BACKENDS)
def memory(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory.open(settings=open_settings(request.param, tmp_path_factory.mktemp("arguments"))) as opened:
        yield opened
        assert opened.doctor().ok


@pytest.fixture(scope="module")
def ids(memory: Memory) -> dict[str, str]:
    chat = memory.store("Mara fixed the ingest worker by raising its memory limit.", session_id="s1")
    task = memory.store_task("deploy the worker", [{"content": "helm upgrade failed: exit code 1", "outcome": "failure"}],
                             outcome="failure", session_id="s2")  # fmt: skip
    return {"chat": chat.id, "task": task.task.id}


def _public_methods() -> list[str]:
    return sorted(name for name, value in inspect.getmembers(Memory)
                  if not name.startswith("_") and callable(value) and name not in NOT_CALLED)  # fmt: skip


def _counts(memory: Memory) -> tuple[Any, ...]:
    return memory.stats(), memory.health().vector_points, len(memory.archived())


def _label(value: Any) -> str:
    try:
        return repr(value)[:40]
    except RecursionError:
        return "<nested>"


@pytest.mark.parametrize("method", _public_methods())
def test_every_argument_of_every_method(memory: Memory, ids: dict[str, str], tmp_path: Path, method: str) -> None:
    starting = _starting_calls(ids, tmp_path)
    assert method in starting, f"Memory.{method} is new: give it a starting call in _starting_calls"
    call = getattr(memory, method)
    names = [p.name for p in inspect.signature(call).parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]  # fmt: skip
    for name in names:
        for value in HOSTILE:
            arguments = {**starting[method], name: value}
            before = _counts(memory) if method in WRITES else None
            try:
                call(**arguments)
            except (NotFound, ReadOnlyViolation, AccessDenied):
                continue
            except InvalidInput as refused:
                assert refused.field.split(".")[0].split("[")[0] in {*names, "items", "steps"} and refused.reason, (
                    method, name, _label(value), refused.field)  # fmt: skip
                if before is not None:
                    assert _counts(memory) == before, f"a refused {method}({name}={_label(value)}) changed the memory"
            except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
                pytest.fail(f"{method}({name}={_label(value)}) raised {type(exc).__name__}: {str(exc)[:200]}")


@pytest.mark.parametrize("content", [
    "Zq" + "x" * 90_000 + " joined the team.", "We moved Atlas to " + "Postgresql" * 2_000 + ".",
    "Error: " + "E" * 20_000 + "Exception: failed", "我们决定用" + "数" * 10_000,
])  # fmt: skip
def test_a_word_longer_than_any_name_is_stored_on_every_backend(memory: Memory, content: str) -> None:
    """Within max_content_chars, whatever its words: a graph index key has a size limit (Neo4j's
    refuses ~8 kB and fails the write), so no entity is named by such a word."""
    stored = memory.store(content, session_id="long", outcome="failure" if content.startswith("Error") else None)
    assert memory.get(stored.id).content == content
    assert all(len(name) <= 200 for name in stored.entities)


def test_every_field_of_every_mcp_tool(memory: Memory, ids: dict[str, str]) -> None:
    starting = {"store_memory": {"content": "Mara rotated the keys."}, "retrieve_memory": {"query": "keys"},
                "forget_memory": {"memory_id": NOWHERE}, "explain_memory": {"memory_id": ids["chat"]},
                "query_graph": {"cypher": "MATCH (e:Entity) WHERE e.namespace = $namespace RETURN e.name LIMIT 3"},
                "get_entity": {"name": "Mara"}}  # fmt: skip

    async def scenario() -> None:
        async with Client(build_server(memory, default_namespace="default")) as client:
            tools = (await client.list_tools()).tools
            for tool in tools:
                base = starting.get(tool.name, {})
                for field in tool.input_schema.get("properties", {}):
                    for raw in HOSTILE_JSON:
                        value = json.loads(raw)
                        if isinstance(value, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in value):
                            continue  # the client's encoder refuses these: tests/test_rest_errors.py sends them raw
                        writes = tool.name.startswith("store")
                        before = _counts(memory) if writes else None
                        result = await client.call_tool(tool.name, {**base, field: value})
                        if result.is_error:
                            text = result.content[0].text if result.content and result.content[0].type == "text" else ""
                            assert text and "internal error" not in text, (tool.name, field, raw[:40], text)
                            if writes:
                                assert _counts(memory) == before, (tool.name, field, raw[:40])

    anyio.run(scenario)


def _schema(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = document["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for verb, operation in item.items():
            if verb in {"get", "post", "put", "patch", "delete"}:
                yield verb, path, operation


@pytest.fixture(scope="module")
def client(memory: Memory) -> Iterator[TestClient]:
    with in_process(memory) as test_client:
        yield test_client


def test_every_field_of_every_rest_operation(memory: Memory, ids: dict[str, str], client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    path_values = {"namespace": "default", "id": ids["chat"], "name": "Mara", "session_id": "s1"}
    bodies = {"store": {"content": "Mara rotated the keys."}, "store_many": {"items": [{"content": "ok"}]},
              "store_task": {"task": "t", "steps": [{"content": "ok", "outcome": "success"}]},
              "recall": {"query": "keys"}, "cypher": {"query": "MATCH (e:Entity) RETURN e.name LIMIT 1"},
              "import": {}}  # fmt: skip
    driven = 0
    for verb, path, operation in _operations(document):
        url = path.format(**path_values)
        base = bodies.get(operation["operationId"], {})
        fields: list[tuple[str, str]] = [(p["in"], p["name"]) for p in operation.get("parameters", [])]
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            fields += [("body", name) for name in _schema(document, body["schema"]).get("properties", {})]
        for where, name in fields:
            for raw in HOSTILE_JSON if where == "body" else HOSTILE_URL:
                before = _counts(memory) if verb != "get" else None
                if where == "path":
                    answer = client.request(verb, path.format(**{**path_values, name: raw}))
                elif where == "query":
                    answer = client.request(verb, f"{url}?{name}={raw}")
                elif where == "body":
                    sent = json.dumps(base)[:-1] + ("," if base else "") + f"{json.dumps(name)}: {raw}" + "}"
                    answer = client.request(verb, url, content=sent.encode(), headers={"Content-Type": "application/json"})
                else:
                    continue  # headers: the token middleware's own tests
                driven += 1
                assert answer.status_code < 500, (verb, path, where, name, raw[:40], answer.text[:300])
                if answer.status_code >= 400:
                    assert answer.headers["content-type"] == "application/problem+json", (verb, path, name)
                    if verb != "get":
                        assert _counts(memory) == before, (verb, path, name, raw[:40])
    assert driven > 300


# Each call opens the memory (~0.4 s): the values that differ in kind, not all of HOSTILE.
CLI_HOSTILE = ["1" + "0" * 400, "-1", "ok \udcff", "x" * 10_000, "   "]
NOT_RUN = {"serve", "demo"}  # they run until stopped


def _cli_starting(tmp: Path) -> dict[str, list[str]]:
    task = tmp / "task.json"
    task.write_text(json.dumps({"task": "rotate the keys", "steps": [{"content": "vault write ok"}]}))
    lines = tmp / "turns.jsonl"
    lines.write_text(json.dumps({"content": "Mara rotated the keys."}) + "\n")
    return {"store": ["Mara rotated the keys."], "store-task": [str(task)], "ingest": [str(lines)],
            "recall": ["keys"], "list": [], "forget": [NOWHERE], "stats": [], "reflect": [], "maintain": [],
            "restore": [NOWHERE], "purge": [NOWHERE], "audit": [], "doctor": [], "info": [],
            "export": [str(tmp / "out.jsonl")], "import": [str(tmp / "missing.jsonl")],
            "cypher": ["MATCH (e:Entity) WHERE e.namespace = $namespace RETURN e.name LIMIT 1"],
            "graph": ["Mara"], "get": [NOWHERE], "explain": [NOWHERE], "explain-fact": [NOWHERE], "sessions": [], "session": ["s1"],
            "namespaces": [], "health": [], "archive list": [], "archive restore": [NOWHERE],
            "entity show": ["Mara"], "entity merge": ["Mara", "Marra"], "entity alias": ["Mara", "M."]}  # fmt: skip


def _commands() -> Iterator[tuple[list[str], Any]]:
    """Every leaf command of the CLI with its path of group names."""
    stack: list[tuple[list[str], Any]] = [([], get_command(app))]
    while stack:
        path, command = stack.pop()
        children = getattr(command, "commands", None)
        if children:
            stack.extend(([*path, name], child) for name, child in children.items())
        else:
            yield path, command


def test_every_argument_and_option_of_every_cli_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `export []`, `graph --out nan`: files a relative name writes
    runner = CliRunner()
    data = ["--data-dir", str(tmp_path / "cli")]
    starting = _cli_starting(tmp_path)
    driven, seen = 0, set[str]()
    for path, command in _commands():
        name = " ".join(path)
        if name in NOT_RUN:
            continue
        assert name in starting, f"`hindsight {name}` is new: give it a starting call in _cli_starting"
        arguments = starting[name]
        # An option many commands share (--namespace) is parsed by one piece of code: driven once.
        options = [p.opts[0] for p in command.params if p.param_type_name == "option" and not p.is_flag
                   and p.opts[0] not in {"--data-dir", "--help", *seen}]  # fmt: skip
        seen.update(options)
        spoiled: list[tuple[list[str], list[str]]] = [([*arguments[:n], value, *arguments[n + 1 :]], []) for n in range(len(arguments)) for value in CLI_HOSTILE]
        spoiled += [(arguments, [option, value]) for option in options for value in CLI_HOSTILE]
        for args, extra in spoiled:
            result = runner.invoke(app, [*path, *args, *extra, *data])
            driven += 1
            where = (name, extra[:1], [a[:20] for a in args])
            assert result.exception is None or isinstance(result.exception, SystemExit), (where, repr(result.exception))
            assert result.exit_code in (0, 1, 2, 3), (where, result.exit_code, result.output[-300:])
            assert "Traceback" not in result.output, (where, result.output[-500:])
    assert driven > 150

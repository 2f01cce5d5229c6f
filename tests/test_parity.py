"""One façade, four ways in: every public method of `Memory` (found by `inspect`, not listed)
is reachable from the CLI, the MCP tools, the REST API and `RemoteMemory`, or is named below
as deliberately absent from that surface, with the reason. A new method fails these tests
until it is given a way in or a reason."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import anyio
import pytest
import typer
from mcp import Client
from starlette.testclient import TestClient

from engine import Memory, RemoteMemory, Settings
from engine.cli import app
from mcp_server.http import http_app
from mcp_server.server import build_server

# How a process gets a Memory and lets it go: not operations on a memory.
LIFECYCLE = {"open": "constructs", "connect": "constructs a client", "close": "ends the object"}
OPERATOR = "an operator's maintenance of the store, not a tenant's or an agent's"
WARM = "a process's own start-up: `hindsight serve` warms its models as it starts"

CLI_NAMES = {"store_many": "ingest", "entity": "entity show", "merge_entities": "entity merge",
             "add_alias": "entity alias", "archived": "archive list", "import_": "import"}  # fmt: skip
CLI_ABSENT = {
    "end_session": "working memory lives in a process, and a command is a process of its own",
    "optimize": "store_many and doctor --repair build the index after large writes",
    "warm": WARM,
}
MCP_TOOLS = {"store": "store_memory", "store_task": "store_task", "recall": "retrieve_memory", "list": "list_memories",
             "forget": "forget_memory", "reflect": "reflect", "explain": "explain_memory", "explain_fact": "explain_fact",
             "entity": "get_entity", "cypher": "query_graph", "sessions": "list_sessions",
             "session": "get_session"}  # fmt: skip
MCP_ABSENT = {
    **dict.fromkeys(("store_many", "get", "end_session", "stats", "namespaces", "audit",
                     "restore", "health"),
                    "an agent's tools are the memory verbs; these are for people and services "
                    "(CLI, REST)"),
    **dict.fromkeys(("maintain", "purge", "archived", "doctor", "optimize", "export", "import_",
                     "merge_entities", "add_alias"), OPERATOR),
    "warm": WARM,
}  # fmt: skip
REST_ABSENT = {
    **dict.fromkeys(("maintain", "purge", "archived", "doctor", "optimize", "import_", "merge_entities",
                     "add_alias"), OPERATOR),
    "warm": WARM,
}  # fmt: skip
REMOTE_ABSENT = REST_ABSENT  # RemoteMemory is the REST API's client


def _public() -> set[str]:
    return {name for name, member in inspect.getmembers(Memory)
            if not name.startswith("_") and callable(member)} - LIFECYCLE.keys()  # fmt: skip


def _missing(reachable: set[str], absent: dict[str, str]) -> set[str]:
    assert all(reason for reason in absent.values())
    assert not reachable & absent.keys(), "listed as absent but reachable"
    return _public() - reachable - absent.keys()


def _commands(command: typer.core.TyperGroup, prefix: str = "") -> set[str]:
    names = set()
    for name, sub in command.commands.items():
        if isinstance(sub, typer.core.TyperGroup):
            names |= _commands(sub, f"{prefix}{name} ")
        else:
            names.add(prefix + name)
    return names


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory.open(settings=Settings(data_dir=tmp_path_factory.mktemp("parity"))) as opened:
        yield opened


def test_every_method_has_a_command() -> None:
    commands = _commands(typer.main.get_command(app))  # type: ignore[arg-type]
    reachable = {name for name in _public()
                 if CLI_NAMES.get(name, name.strip("_").replace("_", "-")) in commands}  # fmt: skip
    assert _missing(reachable, CLI_ABSENT) == set()


def test_every_method_has_a_tool(memory: Memory) -> None:
    async def tools() -> set[str]:
        async with Client(build_server(memory)) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    offered = anyio.run(tools)
    assert set(MCP_TOOLS.values()) == offered
    assert _missing(set(MCP_TOOLS), MCP_ABSENT) == set()


def test_every_method_has_a_route(memory: Memory) -> None:
    with TestClient(http_app(build_server(memory), memory, memory.settings),
                    base_url="http://127.0.0.1:8765") as client:  # fmt: skip
        document = client.get("/openapi.json").json()
    operations = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    reachable = {op.removesuffix("_get").removesuffix("_all") for op in operations}
    assert reachable <= _public() | {"health"}
    assert _missing(reachable, REST_ABSENT) == set()


def test_every_method_has_a_remote_twin_with_its_keywords() -> None:
    reachable = {name for name in _public() if callable(getattr(RemoteMemory, name, None))}
    assert _missing(reachable, REMOTE_ABSENT) == set()
    for name in reachable:
        local = set(inspect.signature(getattr(Memory, name)).parameters)
        remote = set(inspect.signature(getattr(RemoteMemory, name)).parameters)
        assert local == remote, f"RemoteMemory.{name} takes {remote ^ local} differently"


def test_the_parity_check_notices_a_new_method(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Memory, "brand_new", lambda self: None, raising=False)
    assert _missing(set(), {}) >= {"brand_new"}


def test_every_absence_states_its_reason() -> None:
    """The reasons above are data: each must be a sentence, not a placeholder."""
    for absent in (CLI_ABSENT, MCP_ABSENT, REST_ABSENT):
        assert all(len(reason.split()) >= 3 for reason in absent.values())

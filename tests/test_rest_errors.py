"""Every REST and MCP answer to bad input or a failing store is a problem naming the field,
never a plain-text 500 and never the server's internals; and nothing is stored.

The app is the one `hindsight serve` runs, in process over a real embedded memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from engine import InvalidInput, Memory, Settings
from engine.inputs import MAX_METADATA_DEPTH
from tests.serving import in_process

PROBLEM = "application/problem+json"
SECRET_PATH = "/srv/secret-internal-path/ladybug.db"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory.open(settings=Settings(data_dir=tmp_path_factory.mktemp("errors"))) as opened:
        yield opened


@pytest.fixture(scope="module")
def client(memory: Memory) -> Iterator[TestClient]:
    with in_process(memory) as test_client:
        yield test_client


def _post(client: TestClient, path: str, raw: bytes) -> Any:
    return client.post(path, content=raw, headers={"Content-Type": "application/json"})


def _problem(answer: Any, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    return answer.json()  # type: ignore[no-any-return]


def _count(memory: Memory) -> int:
    return memory.stats(namespace="n").episodes


@pytest.mark.parametrize(("raw", "field"), [
    (b'{"content": "\\ud800"}', "content"),
    (b'{"content": "fine \\udfff fine"}', "content"),
    (b'{"content": "fine", "role": "\\ud83d"}', "role"),
    (b'{"content": "fine", "metadata": {"k\\u0000": 1}}', "metadata"),
    (b'{"content": "fine", "metadata": {"x": "\\udc00"}}', "metadata"),
    ('{"content": "fine", "metadata": ' + '{"a": ' * (MAX_METADATA_DEPTH + 3) + "1"
     + "}" * (MAX_METADATA_DEPTH + 4), "metadata"),
])  # fmt: skip
def test_a_store_of_text_no_store_can_hold_is_a_400_naming_the_field(
    client: TestClient, memory: Memory, raw: bytes | str, field: str
) -> None:
    body = raw.encode() if isinstance(raw, str) else raw
    before = _count(memory)
    assert _problem(_post(client, "/v1/namespaces/n/episodes", body), 400)["field"] == field
    batch = b'{"items": [{"content": "ok"}, ' + body + b"]}"
    assert _problem(_post(client, "/v1/namespaces/n/episodes/batch", batch), 400)["field"] == f"items[1].{field}"
    assert _count(memory) == before


def test_recall_of_a_lone_surrogate_is_a_400(client: TestClient) -> None:
    answer = _post(client, "/v1/namespaces/n/recall", b'{"query": "why \\ud800"}')
    assert _problem(answer, 400)["field"] == "query"


@pytest.mark.parametrize("number", [10**400, -(10**400), 2**63])
@pytest.mark.parametrize("field", ["importance", "occurred_at", "expires_at"])
def test_a_number_past_any_range_is_a_400_naming_the_field(
    client: TestClient, memory: Memory, field: str, number: int
) -> None:
    before = _count(memory)
    body = f'{{"content": "fine", "{field}": {number}}}'.encode()
    assert _problem(_post(client, "/v1/namespaces/n/episodes", body), 400)["field"] == field
    with pytest.raises(InvalidInput, match=field):
        memory.store("fine", namespace="n", **{field: number})  # type: ignore[arg-type]
    assert _count(memory) == before
    recall = _post(client, "/v1/namespaces/n/recall", f'{{"query": "fine", "now": {number}}}'.encode())
    assert _problem(recall, 400)["field"] == "now"


@pytest.mark.parametrize("session_id", ["\ud800", "a\x00b", "", "x" * 129])
def test_a_session_filter_no_session_could_have_is_bad_input(memory: Memory, session_id: str) -> None:
    with pytest.raises(InvalidInput, match="session_id"):
        memory.list(namespace="n", session_id=session_id)


def test_a_body_that_is_not_json_says_so_with_line_and_column(client: TestClient) -> None:
    problem = _problem(_post(client, "/v1/namespaces/n/episodes", b'{"content": "x",\n "role": }'), 400)
    assert problem["field"] == "body"
    assert problem["reason"].startswith("is not valid JSON") and "line 2, column 10" in problem["reason"]


def test_a_store_that_raises_is_a_problem_without_internals(
    client: TestClient, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug below the façade (here the real graph store made to fail as a driver would)."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"pybind11 cast failed in {SECRET_PATH}")

    monkeypatch.setattr(memory._core.graph, "stats", broken)
    problem = _problem(client.get("/v1/namespaces/n/stats"), 500)
    assert problem["type"] == "urn:hindsight:error" and SECRET_PATH not in json.dumps(problem)
    assert "pybind11" not in json.dumps(problem)


def test_an_mcp_call_holding_a_lone_surrogate_is_refused_and_stores_nothing(
    client: TestClient, memory: Memory
) -> None:
    """As a raw client sends it: the JSON escape \\ud800 (an MCP SDK cannot even encode it).
    The protocol layer refuses it as a JSON-RPC parse error naming where, before any tool."""
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}  # fmt: skip
    opened = client.post("/mcp?namespace=n", json=init, headers=accept)
    assert opened.status_code == 200
    session = {**accept, "mcp-session-id": opened.headers["mcp-session-id"],
               "mcp-protocol-version": "2025-06-18"}  # fmt: skip
    client.post("/mcp?namespace=n", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers=session)  # fmt: skip
    before = _count(memory)
    call = (b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "store_memory",'
            b' "arguments": {"content": "x \\ud800 y"}}}')
    answer = client.post("/mcp?namespace=n", content=call, headers=session)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == -32700 and "column" in error["message"]
    assert _count(memory) == before

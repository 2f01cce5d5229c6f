"""What a token bound to one namespace, or no token, can learn over HTTP of the others.

A real `hindsight serve` on each graph backend, with an admin token and one bound to `team-a`: `/health` tells the
world only whether the service is up, and a token only its own counts, unchanged when another
namespace is written; an MCP request whose namespace is unclear (repeated, in two places, or
misspelled) is refused before any tool runs, and a tool of an accepted one acts only in the
token's namespace.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from engine import AccessDenied, Memory
from tests.backends import BACKENDS, backend_env, open_settings
from tests.serving import free_port, served

ADMIN = "admin-token-0123456789"
TEAM_A = "team-a-token-0123456789"
PROBLEM = "application/problem+json"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "attacker", "version": "1"}}}  # fmt: skip


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server on each graph backend (on Neo4j, over an emptied database)."""
    port = free_port()
    data = tmp_path_factory.mktemp("isolation")
    open_settings(request.param, data / "d")  # on Neo4j: empty the database first
    env = {**os.environ, **backend_env(request.param, data / "d"), "HINDSIGHT_API_TOKEN": ADMIN,
           "HF_HUB_OFFLINE": "1", "HINDSIGHT_API_TOKENS": json.dumps({TEAM_A: ["team-a"]})}  # fmt: skip
    with served(["--port", str(port), "--data-dir", str(data / "d")], env,
                data / "server.log", port) as base:  # fmt: skip
        yield base


def _as(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _health(server: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    answer = httpx.get(f"{server}/health", headers=headers or {})
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]


def test_health_tells_a_stranger_only_that_the_service_is_up(server: str) -> None:
    with Memory.connect(server, token=ADMIN, namespace="team-a") as admin:
        admin.store("Team A ships Vega on Friday.")
    probes = [{}, _as("wrong-token-0123456789"), {"Authorization": ADMIN}]
    before = [_health(server, headers) for headers in probes]
    with Memory.connect(server, token=ADMIN, namespace="team-b") as admin:
        for n in range(3):
            admin.store(f"Team B's launch code name is Kestrel-{n}.")
    assert [_health(server, headers) for headers in probes] == before
    for report in before:
        assert report["status"] == "ok" and report["graph"] == "ok" and report["vectors"] == "ok"
        assert report.get("episodes") is None and report.get("vector_points") is None


def test_health_counts_only_the_tokens_own_namespaces(server: str) -> None:
    with Memory.connect(server, token=ADMIN, namespace="team-a") as admin:
        admin.store("Team A reviews Vega every Monday.")
        own = admin.stats(namespace="team-a").episodes
    before = _health(server, _as(TEAM_A))
    assert before["episodes"] == own and isinstance(before["vector_points"], int)
    everything = _health(server, _as(ADMIN))["episodes"]
    with Memory.connect(server, token=ADMIN, namespace="team-b") as admin:
        admin.store("Team B moved Kestrel to Tuesday.")
    assert _health(server, _as(TEAM_A)) == before  # B's write is invisible to A
    assert _health(server, _as(ADMIN))["episodes"] == everything + 1
    refused = httpx.get(f"{server}/health?namespace=team-b", headers=_as(TEAM_A))
    assert refused.status_code == 403 and refused.headers["content-type"] == PROBLEM
    with Memory.connect(server, token=TEAM_A) as team_a:
        with pytest.raises(AccessDenied, match="may not use that namespace"):
            team_a.health(namespaces=["team-b"])  # refused, not "unreachable"
        assert team_a.health().episodes == own
    with Memory.connect(server, token=ADMIN) as admin:
        only_b = admin.health(namespaces=["team-b"]).episodes
        assert only_b == admin.stats(namespace="team-b").episodes
        assert admin.health(namespaces=["team-a", "team-b"]).episodes == own + only_b


@pytest.mark.parametrize(("query", "header", "parameter"), [
    ("?namespace=team-b&namespace=team-a", None, "namespace"),
    ("?namespace=team-a&namespace=team-a", None, "namespace"),
    ("?namespace=team-b", "team-a", "namespace"),
    ("?namespace=team-a", "team-b", "namespace"),
    ("?Namespace=team-b", None, "Namespace"),
    ("?NAMESPACE=team-a", None, "NAMESPACE"),
])  # fmt: skip
def test_mcp_refuses_an_unclear_namespace_naming_the_parameter(
    server: str, query: str, header: str | None, parameter: str
) -> None:
    headers = {**_as(TEAM_A), "Accept": "application/json, text/event-stream"}
    if header is not None:
        headers["X-Hindsight-Namespace"] = header
    for path in ("/mcp", "/sse"):
        answer = httpx.post(server + path + query, json=INITIALIZE, headers=headers) \
            if path == "/mcp" else httpx.get(server + path + query, headers=headers)  # fmt: skip
        assert answer.status_code == 400 and answer.headers["content-type"] == PROBLEM, path
        assert answer.json()["field"] == parameter and "team-b" not in answer.json()["reason"]


@asynccontextmanager
async def _mcp(server: str, token: str, query: str) -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers=_as(token)) as http:
        async with Client(streamable_http_client(f"{server}/mcp{query}", http_client=http)) as client:
            yield client


def test_an_mcp_tool_acts_only_in_the_tokens_namespace(server: str) -> None:
    """Store through MCP as team A, then read as admin in team A and in team B."""

    async def scenario() -> None:
        async with _mcp(server, TEAM_A, "?namespace=team-a") as client:
            stored = await client.call_tool("store_memory", {"content": "Vega's signing key rotates in May."})
            assert not stored.is_error and stored.structured_content is not None
            assert stored.structured_content["namespace"] == "team-a"
            recalled = await client.call_tool("retrieve_memory", {"query": "Kestrel launch code name"})
            assert recalled.structured_content is not None
            assert all(c["namespace"] in ("team-a", "shared") for c in recalled.structured_content["cards"])

    anyio.run(scenario)
    with Memory.connect(server, token=ADMIN, namespace="team-a") as admin:
        assert any("signing key" in e.content for e in admin.list())
        assert not any("signing key" in e.content for e in admin.list(namespace="team-b"))


def test_a_token_exports_its_own_namespaces_and_no_other(server: str, tmp_path: Path) -> None:
    with Memory.connect(server, token=ADMIN, namespace="team-b") as admin:
        admin.store("Team B's vault code is ZEBRA-7731.")
    with Memory.connect(server, token=ADMIN, namespace="team-a") as admin:
        admin.store("Team A deploys Vega from the main branch.")
    with Memory.connect(server, token=TEAM_A, namespace="team-a") as team_a:
        summary = team_a.export(tmp_path / "a.jsonl")
        text = (tmp_path / "a.jsonl").read_text()
        assert summary.nodes > 0 and "Vega" in text
        assert "ZEBRA" not in text and "team-b" not in text
        for asked in (["team-b"], ["team-a", "team-b"], ["team-nobody"]):
            with pytest.raises(AccessDenied):
                team_a.export(tmp_path / "b.jsonl", namespaces=asked)
        assert not (tmp_path / "b.jsonl").exists()
    refused = httpx.get(f"{server}/v1/export?namespace=team-b", headers=_as(TEAM_A))
    assert refused.status_code == 403 and refused.headers["content-type"] == PROBLEM
    assert httpx.get(f"{server}/v1/export").status_code == 401
    with Memory.connect(server, token=ADMIN) as admin:
        whole = admin.export(tmp_path / "all.jsonl")
        assert "ZEBRA" in (tmp_path / "all.jsonl").read_text() and whole.nodes > summary.nodes
        admin.export(tmp_path / "b.jsonl", namespaces=["team-b"])
        assert "Vega" not in (tmp_path / "b.jsonl").read_text()

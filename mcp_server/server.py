"""The hindsight server: the memory tools over MCP (stdio, SSE, streamable HTTP) and REST.

Over HTTP (`mcp_server.http`) one app serves the REST API at `/v1` (OpenAPI at
`/openapi.json`, docs at `/docs`), streamable HTTP MCP at `/mcp`, SSE at `/sse` (posting to
`/messages/`), and `GET /health`. When tokens are set (`api_token`, `api_tokens`), every path
but `/health` and the docs needs `Authorization: Bearer <token>`, and a token bound to
namespaces may use only those (`mcp_server.auth`).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Literal

import anyio
from mcp.server.mcpserver import MCPServer

from engine import HindsightError, __version__
from mcp_server.schedule import MaintenanceLoop
from mcp_server.tools import memory_tools

if TYPE_CHECKING:
    from engine.memory import Memory
    from engine.settings import Settings

__all__ = ["MCP_PATH", "Transport", "build_server", "run"]

log = logging.getLogger(__name__)

Transport = Literal["stdio", "sse", "streamable-http"]

INSTRUCTIONS = """hindsight is your long-term memory. Before answering anything that may depend
on earlier sessions, call retrieve_memory; store what is worth remembering with store_memory
(decisions, preferences, facts, numbers, task outcomes), not greetings. Cards cite episode ids;
explain_memory and get_entity tell you more about a card or a named thing."""

MCP_PATH = "/mcp"


def build_server(memory: Memory, *, default_namespace: str = "default") -> MCPServer:
    """An MCP server whose tools act on `memory` in the connection's namespace."""
    server: MCPServer = MCPServer(
        "hindsight",
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=memory_tools(memory, default_namespace),
    )
    return server


def run(
    memory: Memory, settings: Settings, *, transport: Transport, default_namespace: str
) -> None:
    """Serve until interrupted, with the maintenance loop running beside it. The caller owns
    `memory` and closes it afterwards."""
    memory.actor = "mcp"
    server = build_server(memory, default_namespace=default_namespace)
    # Answer at once, and load the models meanwhile: the first store then does not wait.
    threading.Thread(target=_warm, args=(memory,), name="hindsight-warm-up", daemon=True).start()
    loop = MaintenanceLoop(memory, settings.reflection_interval)
    loop.start()
    try:
        if transport == "stdio":
            server.run("stdio")
        elif transport == "sse" or transport == "streamable-http":
            import uvicorn

            from mcp_server.http import http_app

            config = uvicorn.Config(
                http_app(server, memory, settings, default_namespace),
                host=settings.host, port=settings.port,
                log_level="info",
            )  # fmt: skip
            anyio.run(uvicorn.Server(config).serve)
        else:
            raise ValueError(f"unknown transport {transport!r}")
    finally:
        loop.stop()


def _warm(memory: Memory) -> None:
    try:
        memory.warm()
    except HindsightError as exc:  # closed before it was done: nothing to warm any more
        log.debug("warm-up stopped: %s", exc)

"""The hindsight MCP server: the memory tools over stdio, SSE and streamable HTTP.

One HTTP app serves streamable HTTP at `/mcp`, SSE at `/sse` (posting to `/messages/`), and
`GET /health`. When `settings.api_token` is set, every path but `/health` needs
`Authorization: Bearer <token>`; the health check stays open for container orchestrators.
"""

from __future__ import annotations

import hmac
import json
import re
from typing import Literal

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import Memory, __version__
from engine.models import check_namespace
from engine.settings import Settings
from mcp_server.namespaces import namespace_from_request
from mcp_server.schedule import MaintenanceLoop
from mcp_server.tools import memory_tools

__all__ = ["Transport", "build_server", "http_app", "run"]

Transport = Literal["stdio", "sse", "streamable-http"]

INSTRUCTIONS = """hindsight is your long-term memory. Before answering anything that may depend
on earlier sessions, call retrieve_memory; store what is worth remembering with store_memory
(decisions, preferences, facts, numbers, task outcomes), not greetings. Cards cite episode ids;
explain_memory and get_entity tell you more about a card or a named thing."""

MCP_PATH = "/mcp"
HEALTH_PATH = "/health"


def build_server(memory: Memory, *, default_namespace: str = "default") -> MCPServer:
    """An MCP server whose tools act on `memory` in the connection's namespace."""
    server: MCPServer = MCPServer(
        "hindsight",
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=memory_tools(memory, default_namespace),
    )
    return server


def http_app(server: MCPServer, memory: Memory, settings: Settings) -> ASGIApp:
    """Streamable HTTP at /mcp, SSE at /sse, /health, behind the optional bearer token."""

    async def health(request: Request) -> Response:
        report = await anyio.to_thread.run_sync(memory.health)
        return JSONResponse(report.model_dump(), status_code=200 if report.status == "ok" else 503)

    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=settings.host)
    sse = server.sse_app(sse_path="/sse", message_path="/messages/", host=settings.host)
    app.router.routes.insert(0, Route(HEALTH_PATH, health, methods=["GET"]))
    app.router.routes.append(Mount("/", app=_SseNamespace(sse)))
    token = settings.api_token.get_secret_value() if settings.api_token else None
    return _BearerAuth(app, token) if token else app


def run(
    memory: Memory, settings: Settings, *, transport: Transport, default_namespace: str
) -> None:
    """Serve until interrupted, with the maintenance loop running beside it. The caller owns
    `memory` and closes it afterwards."""
    memory.actor = "mcp"
    server = build_server(memory, default_namespace=default_namespace)
    loop = MaintenanceLoop(memory, settings.reflection_interval)
    loop.start()
    try:
        if transport == "stdio":
            server.run("stdio")
        elif transport == "sse" or transport == "streamable-http":
            config = uvicorn.Config(
                http_app(server, memory, settings), host=settings.host, port=settings.port,
                log_level="info",
            )  # fmt: skip
            anyio.run(uvicorn.Server(config).serve)
        else:
            raise ValueError(f"unknown transport {transport!r}")
    finally:
        loop.stop()


class _BearerAuth:
    """401 for any request without the right bearer token, except the health check."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == HEALTH_PATH:
            await self._app(scope, receive, send)
            return
        sent = dict(scope["headers"]).get(b"authorization", b"")
        if hmac.compare_digest(sent, self._expected):
            await self._app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "detail": "missing or wrong bearer token"})
        response = Response(
            body,
            status_code=401,
            media_type="application/json",
            headers={"WWW-Authenticate": 'Bearer realm="hindsight"'},
        )
        await response(scope, receive, send)


_ENDPOINT_EVENT = re.compile(rb"(event: endpoint\r?\ndata: [^\r\n]*session_id=[0-9a-f]+)")


class _SseNamespace:
    """Carry `?namespace=` from the SSE URL to the message URL the server announces.

    An SSE client posts its messages to the endpoint the server sends first; without this,
    those posts would not say which namespace the connection was opened for. (Headers need
    no help: SSE clients send them on both requests.)
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        named = namespace_from_request(Request(scope)) if scope["type"] == "http" else None
        if named is None or scope["path"] != "/sse":
            await self._app(scope, receive, send)
            return
        try:
            suffix = b"&namespace=" + check_namespace(named).encode()
        except ValueError as exc:
            response = JSONResponse({"error": "invalid namespace", "detail": str(exc)}, 400)
            await response(scope, receive, send)
            return

        async def announce(message: Message) -> None:
            if message["type"] == "http.response.body":
                body = message.get("body", b"")
                message = {**message, "body": _ENDPOINT_EVENT.sub(rb"\1" + suffix, body, count=1)}
            await send(message)

        await self._app(scope, receive, announce)

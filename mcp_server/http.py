"""The server over HTTP: one ASGI app with the REST API at /v1 (OpenAPI at /openapi.json,
docs at /docs), streamable HTTP MCP at /mcp, SSE at /sse and /health, behind the tokens when
set. Imported only by the HTTP transports: stdio needs none of FastAPI."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
from fastapi import FastAPI, Query
from fastapi_offline import FastAPIOffline
from mcp.server.mcpserver import MCPServer
from pydantic import StringConstraints
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import Memory, __version__
from engine.errors import AccessDenied, InvalidInput
from engine.inputs import NAMESPACE_PATTERN, check_namespace
from engine.settings import Settings
from engine.views import Health
from mcp_server.auth import TokenAuth
from mcp_server.namespaces import NamespaceParameters, namespace_from_request
from mcp_server.openapi import install_openapi
from mcp_server.problems import install_handlers
from mcp_server.rest import rest_router
from mcp_server.server import MCP_PATH

__all__ = ["HEALTH_PATH", "http_app"]

API_DESCRIPTION = """Agent memory with reasons: store episodes, recall cards that cite their
sources and carry a trace, reflect them into facts. The same methods as the Python `Memory`;
errors are `application/problem+json`."""

HEALTH_PATH = "/health"
# Namespaces one health check may count: each is a count in each store.
MAX_HEALTH_NAMESPACES = 100


def http_app(server: MCPServer, memory: Memory, settings: Settings,
             default_namespace: str = "default") -> ASGIApp:  # fmt: skip
    """One app: the REST API at /v1 with its OpenAPI at /openapi.json and docs at /docs,
    streamable HTTP MCP at /mcp, SSE at /sse, and /health; behind the tokens when set."""
    mcp_app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=settings.host)
    sse = server.sse_app(sse_path="/sse", message_path="/messages/", host=settings.host)
    mcp_app.router.routes.append(Mount("/", app=_SseNamespace(sse)))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with mcp_app.router.lifespan_context(mcp_app):  # MCP's session manager
            yield

    scopes = settings.token_scopes()
    app = FastAPIOffline(
        title="hindsight", version=__version__, description=API_DESCRIPTION, lifespan=lifespan,
        redoc_url=None,
    )  # fmt: skip
    install_handlers(app)
    install_openapi(app, with_tokens=scopes.enabled)

    @app.get(HEALTH_PATH, tags=["admin"], operation_id="health",
             responses={503: {"model": Health, "description": "A store does not answer"}})  # fmt: skip
    async def health(
        request: Request,
        namespace: Annotated[
            list[Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN)]] | None,
            Query(description="Count only these namespaces"),
        ] = None,
    ) -> Response:
        """Whether the service and both stores are up (open without a token). The counts of
        episodes and points, and what failed, only for a token: over the namespaces named
        (at most MAX_HEALTH_NAMESPACES), which it must be allowed, or else over every one it
        may use."""
        grant = scopes.grant(request.headers.get("authorization", "").encode()) if scopes.enabled else None
        stranger = scopes.enabled and grant is None
        if namespace is not None and not stranger and len(namespace) > MAX_HEALTH_NAMESPACES:
            raise InvalidInput("namespace", f"at most {MAX_HEALTH_NAMESPACES} per health check, got {len(namespace)}")
        if namespace is not None and grant is not None and not all(map(grant.allows, namespace)):
            raise AccessDenied("this token may not use that namespace")
        namespaces = namespace if namespace is not None or grant is None else (
            None if grant.namespaces is None else sorted(grant.namespaces))  # fmt: skip
        if stranger:  # no token: one request to each store, nothing counted, whatever was asked
            namespaces = []
        report = await anyio.to_thread.run_sync(lambda: memory.health(namespaces=namespaces))
        if stranger:
            report = report.model_copy(update={"detail": None})
        return JSONResponse(report.model_dump(), status_code=200 if report.status == "ok" else 503)

    app.include_router(rest_router(memory))
    app.router.routes.append(_McpMount("/", app=mcp_app))
    guarded = TokenAuth(app, scopes, default_namespace) if scopes.enabled else app
    return NamespaceParameters(guarded)


class _McpMount(Mount):
    """The MCP app under every path but the REST API's: an unknown /v1 path stays FastAPI's
    (a 404 problem), and a known one with another method its 405."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = scope.get("path", "")
        if path == "/v1" or path.startswith("/v1/"):
            return Match.NONE, {}
        return super().matches(scope)


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

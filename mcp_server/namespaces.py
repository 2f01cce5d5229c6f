"""Which namespace a tool call acts in: the connection's, never the tool's arguments.

Over HTTP the client names it with an `X-Hindsight-Namespace` header or a `?namespace=` on the
endpoint URL (SSE clients post to `/messages/<namespace>/`, which carries it too); over stdio
the server's `--namespace` flag does. Unnamed means the server's default namespace.

A request naming it twice (`?namespace=b&namespace=a`), in two places with different values
(`?namespace=b` with the header `a`), or under another spelling (`?Namespace=b`) is refused
with 400 before anything runs: otherwise the token check and the tool could read different
ones.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.inputs import check_namespace

# Paths that are no MCP endpoint (the same as auth's open ones).
PUBLIC_PATHS = ("/health", "/openapi.json", "/docs", "/docs/oauth2-redirect")

__all__ = ["HEADER", "NamespaceParameters", "UnclearNamespace", "namespace_from_request", "namespace_of"]

HEADER = "x-hindsight-namespace"


class UnclearNamespace(ValueError):
    """A request names its namespace more than once, or under another spelling."""

    def __init__(self, parameter: str, reason: str) -> None:
        super().__init__(f"{parameter}: {reason}")
        self.parameter = parameter
        self.reason = reason


def namespace_from_request(request: Any) -> str | None:
    """The namespace an HTTP request names (header, query or path), or None.

    Raises:
        UnclearNamespace: it is named twice, in two places differently, or misspelled.
    """
    if request is None:
        return None
    headers = getattr(request, "headers", None)
    query = getattr(request, "query_params", None)
    path = getattr(request, "path_params", None) or {}
    named: dict[str, str] = {}
    if headers is not None:
        sent = headers.getlist(HEADER)
        if len(sent) > 1:
            raise UnclearNamespace(HEADER, "is sent more than once")
        if sent and sent[0]:
            named[HEADER] = sent[0]
    if query is not None:
        for key in {key for key, _ in query.multi_items()}:
            if key.lower() == "namespace" and key != "namespace":
                raise UnclearNamespace(key, "the query parameter is spelled 'namespace'")
        values = query.getlist("namespace")
        if len(values) > 1:
            raise UnclearNamespace("namespace", "is given more than once in the query")
        if values and values[0]:
            named["namespace"] = values[0]
    if path.get("namespace"):
        named["path"] = str(path["namespace"])
    if len(set(named.values())) > 1:
        raise UnclearNamespace(
            "namespace", f"the {' and the '.join(sorted(named))} name different namespaces"
        )
    return next(iter(named.values()), None)


class NamespaceParameters:
    """Refuses, with a 400 problem naming the parameter, an MCP request whose namespace is
    unclear (`namespace_from_request`); REST paths name theirs in the path, and /health may
    name several to count."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and not path.startswith("/v1/") and path not in PUBLIC_PATHS:
            try:
                namespace_from_request(Request(scope))
            except UnclearNamespace as exc:
                # Imported here: the stdio server, which has no HTTP requests, loads no FastAPI.
                from mcp_server.problems import Problem, problem_response

                problem = Problem(type="urn:hindsight:invalid-input", title="Invalid input",
                                  status=400, detail=f"{exc}", field=exc.parameter,
                                  reason=exc.reason)  # fmt: skip
                await problem_response(problem)(scope, receive, send)
                return
        await self._app(scope, receive, send)


def namespace_of(ctx: Context, default: str) -> str:
    """The validated namespace of the call behind `ctx`."""
    try:
        named = namespace_from_request(ctx.request_context.request)
        return check_namespace(named if named is not None else default)
    except ValueError as exc:  # UnclearNamespace too
        raise ToolError(f"invalid namespace: {exc}") from None

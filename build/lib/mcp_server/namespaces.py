"""Which namespace a tool call acts in: the connection's, never the tool's arguments.

Over HTTP the client names it with an `X-Hindsight-Namespace` header or a `?namespace=` on the
endpoint URL (SSE clients post to `/messages/<namespace>/`, which carries it too); over stdio
the server's `--namespace` flag does. Unnamed means the server's default namespace.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from engine.models import check_namespace

__all__ = ["HEADER", "namespace_from_request", "namespace_of"]

HEADER = "x-hindsight-namespace"


def namespace_from_request(request: Any) -> str | None:
    """The namespace an HTTP request names (header, query, then path), or None."""
    if request is None:
        return None
    headers = getattr(request, "headers", None) or {}
    query = getattr(request, "query_params", None) or {}
    path = getattr(request, "path_params", None) or {}
    for source in (headers.get(HEADER), query.get("namespace"), path.get("namespace")):
        if source:
            return str(source)
    return None


def namespace_of(ctx: Context, default: str) -> str:
    """The validated namespace of the call behind `ctx`."""
    named = namespace_from_request(ctx.request_context.request)
    namespace = named if named is not None else default
    try:
        return check_namespace(namespace)
    except ValueError as exc:
        raise ToolError(f"invalid namespace: {exc}") from None

"""Bearer tokens for every HTTP surface (REST and MCP), with the namespaces each may use.

A request without a known token gets 401. A request for a namespace its token is not bound to
gets 403 before any handler runs, with the same answer whether that namespace exists or not:
it learns nothing about it. The namespace of a request is the one in a REST path
(`/v1/namespaces/<namespace>/...`) or, for MCP, the one it names (`mcp_server.namespaces`) or
the server's default.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.access import Grant, TokenScopes
from mcp_server.namespaces import PUBLIC_PATHS, namespace_from_request
from mcp_server.problems import Problem, problem_response

__all__ = ["PUBLIC_PATHS", "TokenAuth", "grant_of"]

# Open without a token: the health check (for orchestrators) and the API's documentation,
# which holds no data.
PUBLIC_PREFIXES = ("/static-offline-docs/",)
_REST_NAMESPACE = re.compile(r"^/v1/namespaces/([^/]+)")
GRANT_KEY = "hindsight.grant"


def grant_of(request: Request) -> Grant:
    """The grant `TokenAuth` found for this request (every namespace when tokens are off)."""
    grant = request.scope.get(GRANT_KEY)
    return grant if isinstance(grant, Grant) else Grant(None)


class TokenAuth:
    def __init__(self, app: ASGIApp, scopes: TokenScopes, default_namespace: str) -> None:
        self._app = app
        self._scopes = scopes
        self._default = default_namespace

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES):
            await self._app(scope, receive, send)
            return
        sent = dict(scope["headers"]).get(b"authorization", b"")
        grant = self._scopes.grant(sent)
        if grant is None:
            problem = Problem(type="urn:hindsight:unauthorized", title="Unauthorized", status=401,
                              detail="missing or wrong bearer token")  # fmt: skip
            headers = {"WWW-Authenticate": 'Bearer realm="hindsight"'}
            await problem_response(problem, headers)(scope, receive, send)
            return
        namespace = self._namespace(scope, path)
        if namespace is not None and not grant.allows(namespace):
            problem = Problem(type="urn:hindsight:access-denied", title="Forbidden", status=403,
                              detail="this token may not use that namespace")  # fmt: skip
            await problem_response(problem)(scope, receive, send)
            return
        scope[GRANT_KEY] = grant
        await self._app(scope, receive, send)

    def _namespace(self, scope: Scope, path: str) -> str | None:
        """The namespace the request acts in; None for a REST path that names none."""
        if path.startswith("/v1/"):
            named = _REST_NAMESPACE.match(path)
            return named.group(1) if named else None
        return namespace_from_request(Request(scope)) or self._default

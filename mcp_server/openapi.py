"""The OpenAPI document of the REST API, shaped to what the server really answers.

FastAPI documents a 422 for every operation; hindsight answers bad input with a 400 problem
(`mcp_server.problems`), so the document says that instead, with the 401/403/404/503 problems
each operation can give and the bearer scheme when tokens are on.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from mcp_server.problems import MEDIA_TYPE, Problem

__all__ = ["install_openapi"]

_PROBLEMS = {
    "400": "Bad input: `field` names it, `reason` says why; nothing was stored",
    "401": "No or a wrong bearer token",
    "403": "The token may not use this namespace",
    "404": "No such record in this namespace",
    "503": "A store failed or cannot be reached",
}


def install_openapi(app: FastAPI, *, with_tokens: bool) -> None:
    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )  # fmt: skip
            app.openapi_schema = _shaped(document, with_tokens)
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]


def _shaped(document: dict[str, Any], with_tokens: bool) -> dict[str, Any]:
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    reference = {"$ref": "#/components/schemas/Problem"}
    if with_tokens:
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    for path, operations in document.get("paths", {}).items():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            if path.startswith("/v1/"):
                codes = ["400", "404", "503"]
                if with_tokens:
                    codes += ["401", "403"]
                    operation["security"] = [{"bearer": []}]
            elif path == "/health":  # open; its own 503 is the Health report
                codes = ["400", "403"] if with_tokens else ["400"]
            else:
                continue
            for code in codes:
                responses[code] = {
                    "description": _PROBLEMS[code],
                    "content": {MEDIA_TYPE: {"schema": reference}},
                }
    return document

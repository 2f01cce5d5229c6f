"""Errors of the HTTP API as `application/problem+json` (RFC 9457), mapped in one place.

The status codes are the CLI's exit classes: 400 bad input (exit 2), 404 not found (exit 3),
503 a store is unavailable (exit 1), 401 and 403 for tokens. `type` says which engine error it
was, so that `RemoteMemory` raises the same exception a local `Memory` would.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from engine.errors import (
    AccessDenied,
    HindsightError,
    InvalidInput,
    NotFound,
    ReadOnlyViolation,
    StoreUnavailable,
    WriteFailed,
)

__all__ = ["MEDIA_TYPE", "Problem", "install_handlers", "problem_response"]

MEDIA_TYPE = "application/problem+json"
log = logging.getLogger("hindsight.http")


class Problem(BaseModel):
    """An error: `type` names its class, `field` and `reason` what was wrong with the input."""

    type: str
    title: str
    status: int
    detail: str
    field: str | None = None
    reason: str | None = None
    what: str | None = None  # not found: what was looked for ("episode", "entity")
    key: str | None = None  # and under which id or name


# urn:hindsight:<type> for each engine error, with its status and title.
_KINDS: list[tuple[type[HindsightError], str, int, str]] = [
    (InvalidInput, "invalid-input", 400, "Invalid input"),
    (ReadOnlyViolation, "read-only", 400, "Read-only violation"),
    (NotFound, "not-found", 404, "Not found"),
    (AccessDenied, "access-denied", 403, "Forbidden"),
    (WriteFailed, "write-failed", 503, "Write failed"),
    (StoreUnavailable, "store-unavailable", 503, "Store unavailable"),
    (HindsightError, "error", 500, "Internal error"),
]


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> Response:
    body = problem.model_dump(exclude_none=True)
    return JSONResponse(body, status_code=problem.status, media_type=MEDIA_TYPE, headers=headers)


def problem_of(exc: HindsightError) -> Problem:
    for cls, kind, status, title in _KINDS:
        if isinstance(exc, cls):
            problem = Problem(type=f"urn:hindsight:{kind}", title=title, status=status,
                              detail=str(exc))  # fmt: skip
            if isinstance(exc, InvalidInput):
                problem.field, problem.reason = exc.field, exc.reason
            elif isinstance(exc, NotFound):
                problem.what, problem.key = exc.what, exc.key
            return problem
    raise AssertionError("HindsightError is the last entry")


def field_name(location: Sequence[Any]) -> str:
    """`items[3].content` from pydantic's ("body", "items", 3, "content")."""
    name = ""
    for part in location[1:] if location and location[0] in ("body", "query", "path") else location:
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            name += ("." if name else "") + str(part)
    return name or "body"


def not_json(body: bytes, error: object) -> str:
    """Why a body is not JSON, by line and column (a person's terms, not a byte offset).

    >>> not_json(b'{"content": "x",\\n "session_id": }', "Expecting value")
    'is not valid JSON: Expecting value at line 2, column 16'
    """
    try:
        json.loads(body)
    except json.JSONDecodeError as exc:
        return f"is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    except (UnicodeDecodeError, RecursionError, ValueError):
        return "is not valid JSON: not UTF-8 text, or nested too deeply"
    return f"is not valid JSON: {error or 'it could not be parsed'}"


def install_handlers(app: FastAPI) -> None:
    """Every error the API answers, engine or HTTP, as a problem."""

    async def engine_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HindsightError)
        problem = problem_of(exc)
        if problem.status >= 500:
            log.warning("%s %s: %s", request.method, request.url.path, exc)
        return problem_response(problem)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "is invalid"}
        if first.get("type") == "json_invalid":  # its loc is a byte offset, not a field
            context = first.get("ctx")
            reason = not_json(await request.body(), context.get("error") if isinstance(context, dict) else None)
            return problem_response(problem_of(InvalidInput("body", reason)))
        field = field_name(first.get("loc", ()))
        reason = str(first.get("msg", "is invalid")).removeprefix("Value error, ")
        return problem_response(problem_of(InvalidInput(field, reason)))

    async def internal_error(request: Request, exc: Exception) -> Response:
        """A bug, never a plain-text 500: the caller learns that, the log learns the rest."""
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        problem = Problem(type="urn:hindsight:error", title="Internal error", status=500,
                          detail="the server could not answer; its log has the details")  # fmt: skip
        return problem_response(problem)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        titles = {404: "Not found", 405: "Method not allowed"}
        problem = Problem(
            type="about:blank", title=titles.get(exc.status_code, "HTTP error"),
            status=exc.status_code, detail=str(exc.detail),
        )  # fmt: skip
        return problem_response(problem, headers=dict(exc.headers or {}))

    app.add_exception_handler(HindsightError, engine_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, internal_error)

"""The one exception tree of hindsight.

    HindsightError                 root: catch this to catch everything hindsight raises
    ├── InvalidInput               a caller's value is wrong; `.field` names it, `.reason` says why
    ├── NotFound                   no memory, entity or session has that id in that namespace
    ├── StoreUnavailable           a graph or vector store failed or cannot be reached
    │   └── WriteFailed            a write did not complete; nothing of it is visible
    ├── ReadOnlyViolation          a read-only entry point was asked to write
    └── AccessDenied               a remote server refused the token (401) or the namespace (403)

Backends convert driver errors at their boundary (``raise StoreUnavailable(...) from exc``);
callers never see a driver's exception. The CLI, the MCP tools and the REST API map this tree
in one place each; `RemoteMemory` maps the REST API's answers back onto it.
"""

from __future__ import annotations

__all__ = [
    "AccessDenied",
    "HindsightError",
    "InvalidInput",
    "NotFound",
    "ReadOnlyViolation",
    "StoreUnavailable",
    "WriteFailed",
]


class HindsightError(Exception):
    """Root of every error hindsight raises."""


class InvalidInput(HindsightError, ValueError):
    """A value given by the caller is wrong. Nothing was stored."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class NotFound(HindsightError, KeyError):
    """No record has that id in the namespace asked for."""

    def __init__(self, what: str, key: str) -> None:
        self.what = what
        self.key = key
        super().__init__(f"{what} not found: {key}")

    def __str__(self) -> str:  # KeyError would quote the message
        return f"{self.what} not found: {self.key}"


class StoreUnavailable(HindsightError):
    """A store failed or cannot be reached."""


class WriteFailed(StoreUnavailable):
    """A write did not complete; it was rolled back and nothing of it is visible."""


class ReadOnlyViolation(HindsightError):
    """A read-only entry point was asked to write."""


class AccessDenied(HindsightError, PermissionError):
    """A server refused the request: no or a wrong token, or a namespace the token may not use."""

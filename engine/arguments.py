"""Checks for the plain arguments of `Memory`'s reads and upkeep (page sizes, flags, lists of
namespaces, file paths, callbacks): each returns the value or raises `InvalidInput` naming the
argument, before anything reaches a store. The stored fields have their models in
`engine.inputs`.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from engine.errors import InvalidInput
from engine.inputs import MAX_OFFSET, check_namespace, is_unicode_text

__all__ = [
    "MAX_PAGE",
    "callback",
    "caller_file_errors",
    "file_path",
    "flag",
    "namespace_names",
    "page",
    "whole_number",
]

MAX_PAGE = 1000

F = TypeVar("F", bound=Callable[..., Any])


def whole_number(field: str, value: object, low: int, high: int) -> int:
    """`value` when it is an int (not a bool) within low..high.

    >>> whole_number("limit", "5", 1, 10)
    Traceback (most recent call last):
    engine.errors.InvalidInput: limit: must be a whole number within 1..10, not str
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(
            field, f"must be a whole number within {low}..{high}, not {type(value).__name__}"
        )
    if not low <= value <= high:
        shown = (
            str(value) if value.bit_length() < 64 else f"an integer of {value.bit_length()} bits"
        )
        raise InvalidInput(field, f"must be within {low}..{high}, got {shown}")
    return value


def page(limit: object, offset: object) -> tuple[int, int]:
    """A listing's page: limit within 1..MAX_PAGE, offset within 0..MAX_OFFSET."""
    return whole_number("limit", limit, 1, MAX_PAGE), whole_number("offset", offset, 0, MAX_OFFSET)


def flag(field: str, value: object) -> bool:
    """`value` when it is True or False: a string such as "false" would read as true."""
    if not isinstance(value, bool):
        raise InvalidInput(field, f"must be true or false, not {type(value).__name__}")
    return value


def namespace_names(field: str, value: object, *, empty: bool = False) -> frozenset[str] | None:
    """A collection of valid namespace names (non-empty unless `empty`), or None (every
    namespace)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidInput(field, f"must be a list of namespace names, not {type(value).__name__}")
    chosen = set()
    for name in value:
        try:
            chosen.add(check_namespace(name))
        except ValueError as exc:
            raise InvalidInput(field, str(exc)) from None
    if not chosen and not empty:
        raise InvalidInput(field, "must name at least one namespace")
    return frozenset(chosen)


def file_path(field: str, value: object) -> Path:
    """A path the file system can be asked about: text or a PathLike, no NUL, valid Unicode,
    not empty."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a file path, not {type(value).__name__}")
    if not is_unicode_text(value) or "\x00" in value or not value.strip():
        raise InvalidInput(field, "must be a non-empty file path of valid Unicode without NUL")
    if not Path(value).name:
        raise InvalidInput(field, "must name a file, not a directory")
    return Path(value)


# What a path the caller chose can get wrong; a disk that fails is an outage, raised as it is.
_CALLERS_FAULT = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM, errno.ENAMETOOLONG,
                  errno.EROFS, errno.ELOOP}  # fmt: skip


@contextmanager
def caller_file_errors(field: str) -> Iterator[None]:
    """Turn the OSErrors a caller's path causes (no such directory, a directory, no permission,
    a name too long) into InvalidInput naming `field`."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in _CALLERS_FAULT:
            raise
        raise InvalidInput(field, f"cannot be used: {exc.strerror}") from None


def callback(field: str, value: F | None) -> F | None:
    """A progress callback: None or something callable."""
    if value is not None and not callable(value):
        raise InvalidInput(field, f"must be callable, not {type(value).__name__}")
    return value

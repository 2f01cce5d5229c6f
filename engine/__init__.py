"""hindsight: a knowledge-graph-centric memory engine for LLM agents.

    >>> from engine import Memory                                          # doctest: +SKIP
    >>> with Memory.open("./hindsight-data") as memory:                      # doctest: +SKIP
    ...     memory.store("We decided to use Postgres.", session_id="s1")
    ...     memory.recall("which database?")
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from engine.errors import (
    AccessDenied,
    HindsightError,
    InvalidInput,
    NotFound,
    ReadOnlyViolation,
    StoreUnavailable,
    WriteFailed,
)

if TYPE_CHECKING:
    from engine.memory import Memory
    from engine.models import (
        ChannelHit,
        Decision,
        Entity,
        Episode,
        GraphPath,
        MemoryCard,
        PathNode,
        Stats,
        StoreResult,
        Trace,
    )
    from engine.remote import RemoteMemory
    from engine.settings import Settings

# Imported on first use: `import engine` (and `hindsight --help`) loads no model, store
# driver or settings machinery until a name that needs them is asked for.
_LAZY = {
    "Memory": "engine.memory", "RemoteMemory": "engine.remote", "Settings": "engine.settings",
    **dict.fromkeys(("ChannelHit", "Decision", "Entity", "Episode", "GraphPath", "MemoryCard",
                     "PathNode", "Stats", "StoreResult", "Trace"), "engine.models"),
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("hindsight-kg")
        except PackageNotFoundError:  # running from a source tree that was never installed
            return "0.0.0"
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


__all__ = [
    "AccessDenied",
    "ChannelHit",
    "Decision",
    "Entity",
    "Episode",
    "GraphPath",
    "HindsightError",
    "InvalidInput",
    "Memory",
    "MemoryCard",
    "NotFound",
    "PathNode",
    "ReadOnlyViolation",
    "RemoteMemory",
    "Settings",
    "Stats",
    "StoreResult",
    "StoreUnavailable",
    "Trace",
    "WriteFailed",
]

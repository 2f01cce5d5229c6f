"""hindsight: a knowledge-graph-centric memory engine for LLM agents.

    >>> from engine import Memory                                          # doctest: +SKIP
    >>> with Memory.open("./hindsight-data") as memory:                      # doctest: +SKIP
    ...     memory.store("We decided to use Postgres.", session_id="s1")
    ...     memory.recall("which database?")
"""

from importlib.metadata import PackageNotFoundError, version

from engine.errors import (
    AccessDenied,
    HindsightError,
    InvalidInput,
    NotFound,
    ReadOnlyViolation,
    StoreUnavailable,
    WriteFailed,
)
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

try:
    __version__ = version("hindsight-kg")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

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

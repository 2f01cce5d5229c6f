"""Start the embedded vector mirror over: set the store aside and rebuild it from the graph.

Above the façade (it opens a `Memory` of its own), so that nothing the façade imports
needs it: `hindsight doctor --rebuild-vectors` and Python callers use it the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from engine.lifecycle.doctor import DoctorReport
from engine.memory import Memory
from engine.settings import Settings, settings_at

__all__ = ["rebuild_vectors"]


def rebuild_vectors(
    path: str | Path | None = None,
    settings: Settings | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    actor: str = "api",
) -> DoctorReport:
    """Set the embedded vector store aside (renamed under the data directory, kept) and
    rebuild it from the graph: for a vector store that no longer opens, or to start it over.
    The audit log records the repair as done by `actor` (as `Memory.actor`).

    Raises:
        InvalidInput: the backend is not the embedded one (delete the Qdrant collection
            instead, then repair).
        StoreUnavailable: the graph cannot be opened (another process holds it, say).
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    resolved = settings_at(path, settings)
    aside = resolved.vectors_dir.with_name(f"{resolved.vectors_dir.name}.set-aside-{stamp}")
    with Memory.open(settings=resolved, vectors_aside=aside) as memory:
        memory.actor = actor
        report = memory.doctor(repair=True, progress=progress)
    return report.model_copy(update={"set_aside": str(aside) if aside.exists() else None})

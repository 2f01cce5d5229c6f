"""The façade's lifecycle half: reflection, forgetting, audit, repair and backup.

`Memory` inherits these methods; they live here to keep each module one screenful of
concern. Every method is a thin call into `engine/reflect/`, `engine/forget.py`,
`engine/doctor.py` or `engine/backup.py`.
"""

from __future__ import annotations

import time

from engine.embed import Embedder
from engine.errors import InvalidInput
from engine.ingest.writer import Writer
from engine.models import check_namespace
from engine.reflect.run import reflect_namespace
from engine.settings import Settings
from engine.stores.base import GraphStore, VectorStore
from engine.views import ReflectionSummary

__all__ = ["Lifecycle"]


class Lifecycle:
    """Mixed into `Memory`; relies on the stores and writer it opens."""

    _graph: GraphStore
    _vectors: VectorStore
    _embedder: Embedder
    _writer: Writer
    settings: Settings

    def _check_open(self) -> None: ...

    def reflect(self, *, namespace: str = "default", force: bool = False) -> ReflectionSummary:
        """Derive semantic facts from the namespace's episodes since the last run.

        Bounded by `reflection_batch_size` episodes and `reflection_time_budget` seconds;
        call again to go on. `force` re-reads from the first episode: facts are reinforced by
        distinct episodes, so re-reading never inflates them.

        Returns:
            What the run read and wrote (`status: nothing_new` when there was nothing to read).
        """
        self._check_open()
        try:
            check_namespace(namespace)
        except ValueError as exc:
            raise InvalidInput("namespace", str(exc)) from None
        with self._writer.lock:
            return reflect_namespace(
                self._graph,
                self._vectors,
                self.settings,
                namespace,
                now=time.time(),
                from_start=force,
            )

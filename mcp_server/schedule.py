"""The maintenance loop of `hindsight serve`: reflection and forgetting on a schedule.

Every `settings.reflection_interval` seconds, for every namespace: `reflect` until every
episode stored before the round began is read (`engine.lifecycle.catch_up`, in runs bounded
by `reflection_batch_size`), then `maintain` (archive expired, stale and over-capacity
episodes). Audit entries name the actor "maintenance". A failing round is logged and the
loop goes on.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from engine import HindsightError
from engine.lifecycle.audit import acting_as
from engine.lifecycle.catch_up import reflect_to_end
from engine.lifecycle.periodic import Periodic

if TYPE_CHECKING:
    from engine.memory import Memory
    from engine.views import ReflectionSummary

__all__ = ["MaintenanceLoop"]

log = logging.getLogger(__name__)


class MaintenanceLoop:
    """A daemon thread (`Periodic`); `stop()` ends it at the next wake-up."""

    def __init__(self, memory: Memory, interval: float) -> None:
        self._memory = memory
        self._thread = Periodic(self.run_once, interval, "hindsight-maintenance")
        self.rounds = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._thread.stop(timeout=30)

    def run_once(self) -> None:
        """One round over every namespace."""
        acting = acting_as.set("maintenance")  # reset after: a caller's thread keeps its actor
        began = time.time()  # episodes' created_at is the wall clock too

        def stop(last: ReflectionSummary) -> bool:
            # What was stored before the round began: a namespace written faster than
            # reflection reads must not hold the round (and the others) forever.
            return self._thread.stopping or last.until >= began

        try:
            for namespace in self._memory.namespaces():
                try:
                    # Every episode since the last round, in bounded runs: a namespace that
                    # stores more than a run reads between two rounds would never catch up.
                    reflect_to_end(self._memory, namespace, stop=stop)
                    self._memory.maintain(namespace=namespace)
                except HindsightError as exc:
                    log.warning("maintenance of %s failed: %s", namespace, exc)
        finally:
            acting_as.reset(acting)
        self.rounds += 1

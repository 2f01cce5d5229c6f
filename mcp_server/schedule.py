"""The maintenance loop of `hindsight serve`: reflection and forgetting on a schedule.

Every `settings.reflection_interval` seconds, for every namespace: `reflect` (bounded per
run), then `maintain` (archive expired, stale and over-capacity episodes). Audit entries name
the actor "maintenance". A failing round is logged and the loop goes on.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from engine import HindsightError
from engine.lifecycle.audit import acting_as

if TYPE_CHECKING:
    from engine.memory import Memory

__all__ = ["MaintenanceLoop"]

log = logging.getLogger(__name__)


class MaintenanceLoop:
    """A daemon thread; `stop()` ends it at the next wake-up."""

    def __init__(self, memory: Memory, interval: float) -> None:
        self._memory = memory
        self._interval = interval
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="hindsight-maintenance", daemon=True)
        self.rounds = 0

    def start(self) -> None:
        if self._interval > 0:
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def run_once(self) -> None:
        """One round over every namespace."""
        acting_as.set("maintenance")
        for namespace in self._memory.namespaces():
            try:
                self._memory.reflect(namespace=namespace)
                self._memory.maintain(namespace=namespace)
            except HindsightError as exc:
                log.warning("maintenance of %s failed: %s", namespace, exc)
        self.rounds += 1

    def _loop(self) -> None:
        while not self._stopped.wait(self._interval):
            self.run_once()

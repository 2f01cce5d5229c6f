"""A daemon thread that calls one function every `interval` seconds until stopped: the
server's maintenance loop and an open memory's idle-session digests."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

__all__ = ["Periodic"]

log = logging.getLogger(__name__)


class Periodic:
    """Calls `round()` every `interval` seconds (never when `interval` is 0); a round that
    raises is logged and the next one runs. `stop()` ends the thread and waits for a round it
    is in, so no thread outlives what started it."""

    def __init__(self, round: Callable[[], None], interval: float, name: str) -> None:
        self._round = round
        self._interval = interval
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    @property
    def stopping(self) -> bool:
        return self._stopped.is_set()

    def start(self) -> None:
        if self._interval > 0:
            self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=timeout)

    def _loop(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                self._round()
            except Exception:  # logged; the next round tries again
                log.warning("%s: a round failed", self._thread.name, exc_info=True)

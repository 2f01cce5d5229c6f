"""A memory opened on a thread of its own, for the stdio server: a client that spawns
`hindsight serve --transport stdio` for every chat gets its `initialize` answered while the
engine is imported and the stores are opened. The first call that needs the memory waits for
it, and raises what opening raised (a locked data directory, say) as that call's error."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.memory import Memory

__all__ = ["OpeningMemory"]


class OpeningMemory:
    """Stands for the `Memory` that `open_memory` returns: attributes are read from it once
    it is open (waiting until it is), and set on it."""

    def __init__(self, open_memory: Callable[[], Memory]) -> None:
        state: dict[str, Any] = {}
        pending: dict[str, Any] = {}  # attributes set before it was open, set on it once it is
        lock = threading.Lock()
        done = threading.Event()

        def opening() -> None:
            try:
                memory = open_memory()
                with lock:
                    for name, value in pending.items():
                        setattr(memory, name, value)
                    state["memory"] = memory
            except BaseException as exc:  # handed to every caller instead
                state["error"] = exc
            finally:
                done.set()

        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_pending", pending)
        object.__setattr__(self, "_lock", lock)
        object.__setattr__(self, "_done", done)
        threading.Thread(target=opening, name="hindsight-open", daemon=True).start()

    def opened(self) -> Memory:
        """The memory, once open; what opening raised, raised again."""
        self._done.wait()
        if "error" in self._state:
            raise self._state["error"]
        memory: Memory = self._state["memory"]
        return memory

    def __getattr__(self, name: str) -> Any:
        return getattr(self.opened(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        """Set on the memory, or, while it opens, kept and set on it once it is (the server
        names its actor before answering anything)."""
        with self._lock:
            if "memory" not in self._state:
                self._pending[name] = value
                return
        setattr(self._state["memory"], name, value)

    def close(self) -> None:
        """Close the memory once it is open (nothing to close when opening failed)."""
        self._done.wait()
        if "memory" in self._state:
            self._state["memory"].close()

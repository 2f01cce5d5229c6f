"""Working memory: per session, a bounded, importance-weighted window, in process.

What an agent is doing right now (scratch notes, low-importance turns, tool results in
flight) lives here, not in the graph. Each item weighs `importance`, times `key_weight` when
the caller flagged it (`metadata={"key": true}`, e.g. a tool result the task depends on).
When a session's window overflows, the lightest item leaves: promoted to episodic memory when
it weighs at least `promote_min`, dropped otherwise. `drain` empties a session the same way
(the façade drains every session when it closes, so nothing worth keeping is lost).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from pydantic import BaseModel

from engine.inputs import StoreRequest
from engine.models import Episode

__all__ = ["WorkingItem", "WorkingMemory", "item_weight", "working_episode"]


class WorkingItem(BaseModel):
    """One item of working memory, with what it takes to promote it later."""

    id: str
    request: StoreRequest
    importance: float
    embedding: list[float]
    created_at: float
    sequence: int  # arrival order within the process: the tie-break, oldest leaves first

    @property
    def key(self) -> bool:
        return self.request.metadata.get("key") is True


def item_weight(importance: float, key: bool, key_weight: float) -> float:
    """importance x key_weight for flagged items, importance otherwise.

    >>> item_weight(0.4, True, 2.0), item_weight(0.4, False, 2.0)
    (0.8, 0.4)
    """
    return importance * key_weight if key else importance


class WorkingMemory:
    """Sessions' windows, keyed by (namespace, session id); thread-safe."""

    def __init__(self, *, capacity: int, key_weight: float, promote_min: float) -> None:
        self._capacity = capacity
        self._key_weight = key_weight
        self._promote_min = promote_min
        self._sessions: dict[tuple[str, str], list[WorkingItem]] = {}
        self._sequence = 0
        self._lock = threading.Lock()

    def add(self, item: WorkingItem) -> list[WorkingItem]:
        """Add an item; return the items to promote because the window overflowed."""
        key = (item.request.namespace, item.request.session_id or "")
        with self._lock:
            self._sequence += 1
            window = self._sessions.setdefault(key, [])
            window.append(item.model_copy(update={"sequence": self._sequence}))
            promoted = []
            while len(window) > self._capacity:
                lightest = min(window, key=self._order)
                window.remove(lightest)
                if self._weight(lightest) >= self._promote_min:
                    promoted.append(lightest)
            return promoted

    def items(self, namespace: str, session_id: str | None = None) -> list[WorkingItem]:
        """The items of one session (or of every session of the namespace), oldest first."""
        with self._lock:
            found = [
                item
                for (ns, sid), window in self._sessions.items()
                if ns == namespace and (session_id is None or sid == session_id)
                for item in window
            ]
        return sorted(found, key=lambda i: i.sequence)

    def drain(
        self, namespace: str | None = None, session_id: str | None = None
    ) -> list[WorkingItem]:
        """Empty the matching sessions; return the items worth promoting."""
        with self._lock:
            keys = [
                k
                for k in self._sessions
                if (namespace is None or k[0] == namespace)
                and (session_id is None or k[1] == session_id)
            ]
            drained: Sequence[WorkingItem] = [i for k in keys for i in self._sessions.pop(k)]
        return [i for i in drained if self._weight(i) >= self._promote_min]

    def remove(self, namespace: str, item_id: str) -> bool:
        """Forget one item; False when no session of the namespace holds it."""
        with self._lock:
            for (ns, _), window in self._sessions.items():
                for item in window:
                    if ns == namespace and item.id == item_id:
                        window.remove(item)
                        return True
        return False

    def _weight(self, item: WorkingItem) -> float:
        return item_weight(item.importance, item.key, self._key_weight)

    def _order(self, item: WorkingItem) -> tuple[float, int]:
        return (self._weight(item), item.sequence)


def working_episode(item: WorkingItem) -> Episode:
    """A working item shown as an (unsaved) episode, for listing."""
    request = item.request
    occurred = request.occurred_at if request.occurred_at is not None else item.created_at
    return Episode(
        id=item.id,
        namespace=request.namespace,
        content=request.content,
        kind=request.kind,
        session_id=request.session_id,
        role=request.role,
        importance=item.importance,
        layer="working",
        occurred_at=occurred,
        created_at=item.created_at,
        metadata=request.metadata,
        related_ids=list(request.related_ids),
    )

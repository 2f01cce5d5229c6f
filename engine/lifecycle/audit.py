"""The append-only audit log: every change of state, who made it, when and why.

One JSON object per line in `<data_dir>/audit.jsonl`. Lines are only ever appended (a
purge is logged like anything else, by ids, never by content), so the log is the history of
the memory. `hindsight audit` reads it.
"""

from __future__ import annotations

import json
import threading
import time
from contextvars import ContextVar
from pathlib import Path

from pydantic import BaseModel, Field

__all__ = ["AuditEntry", "AuditLog", "acting_as"]

# Who is acting in this thread or task, when it is not the Memory's own actor: the
# maintenance loop of `hindsight serve` sets "maintenance".
acting_as: ContextVar[str | None] = ContextVar("acting_as", default=None)


class AuditEntry(BaseModel):
    at: float
    actor: str  # api, cli, mcp, maintenance, reflection
    action: str  # store, forget, restore, purge, archive, unarchive, merge_entities, ...
    namespace: str | None
    ids: list[str] = Field(default_factory=list)
    reason: str | None = None


class AuditLog:
    """Appends and reads `audit.jsonl`; safe across threads of one process.

    `actor` names who acts when `acting_as` names no one (the CLI and the MCP server set their own)."""

    def __init__(self, path: Path, actor: str = "api") -> None:
        self._path = path
        self._lock = threading.Lock()
        self.actor = actor

    def record(self, action: str, namespace: str | None, ids: list[str], reason: str | None = None) -> None:
        """Append `action` as done by whoever is acting now."""
        self.append(action, actor=acting_as.get() or self.actor, namespace=namespace, ids=ids, reason=reason)

    def append(
        self,
        action: str,
        *,
        actor: str,
        namespace: str | None,
        ids: list[str] | None = None,
        reason: str | None = None,
    ) -> None:
        entry = AuditEntry(at=time.time(), actor=actor, action=action, namespace=namespace,
                           ids=ids or [], reason=reason)  # fmt: skip
        with self._lock:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as log:
                log.write(entry.model_dump_json() + "\n")

    def read(self, *, namespace: str | None = None, limit: int = 100) -> list[AuditEntry]:
        """The latest entries first, optionally of one namespace."""
        if not self._path.exists():
            return []
        with self._lock, self._path.open(encoding="utf-8") as log:
            lines = log.readlines()
        entries = []
        for line in reversed(lines):
            try:
                entry = AuditEntry.model_validate(json.loads(line))
            except (ValueError, TypeError):
                continue  # a torn last line after a crash: skip it, keep the rest
            if namespace is None or entry.namespace == namespace:
                entries.append(entry)
                if len(entries) >= limit:
                    break
        return entries

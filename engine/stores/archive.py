"""The archive's role: cold storage of episodes taken out of the live graph, by namespace,
each kept whole enough to bring back (`ArchiveRecord`). Forgetting and backup hold only this
protocol; `engine.stores.jsonl_archive` is the one backend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from engine.models import Decision, Entity, Episode

__all__ = ["ArchiveRecord", "ArchiveStore"]


class ArchiveRecord(BaseModel):
    """Everything needed to bring an archived episode back."""

    episode: Episode
    entities: list[Entity]
    decisions: list[Decision]
    about: list[tuple[str, str]] = Field(default_factory=list)  # decision id, entity id
    chained: bool = False  # it was on its session's NEXT chain, so it rejoins it when back
    archived_at: float
    reason: str


class ArchiveStore(Protocol):
    """Archived episodes by namespace."""

    def append(self, namespace: str, records: Sequence[ArchiveRecord]) -> None:
        """Keep these records (nothing happens for none)."""
        ...

    def records(self, namespace: str) -> list[ArchiveRecord]:
        """Every record of the namespace, oldest first."""
        ...

    def take(self, namespace: str, ids: Sequence[str]) -> list[ArchiveRecord]:
        """Remove and return the records of these episode ids; the rest stay, atomically."""
        ...

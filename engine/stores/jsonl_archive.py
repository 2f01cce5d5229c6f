"""The archive as JSON Lines files under the data directory, one per namespace: appended to,
and rewritten (atomically) only to take records out."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

from engine.stores.archive import ArchiveRecord

__all__ = ["JsonlArchive"]


class JsonlArchive:
    """Cold storage: one JSONL file per namespace, rewritten only to take records out."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._lock = threading.Lock()

    def _file(self, namespace: str) -> Path:
        return self._directory / f"{namespace}.jsonl"

    def append(self, namespace: str, records: Sequence[ArchiveRecord]) -> None:
        if not records:
            return
        with self._lock:
            self._directory.mkdir(parents=True, exist_ok=True)
            with self._file(namespace).open("a", encoding="utf-8") as out:
                for record in records:
                    out.write(record.model_dump_json() + "\n")

    def records(self, namespace: str) -> list[ArchiveRecord]:
        path = self._file(namespace)
        if not path.exists():
            return []
        with self._lock, path.open(encoding="utf-8") as lines:
            return [ArchiveRecord.model_validate(json.loads(line)) for line in lines if line.strip()]

    def take(self, namespace: str, ids: Sequence[str]) -> list[ArchiveRecord]:
        """Remove and return the records of these episode ids."""
        wanted = set(ids)
        kept: list[ArchiveRecord] = []
        taken: list[ArchiveRecord] = []
        for record in self.records(namespace):
            (taken if record.episode.id in wanted else kept).append(record)
        if taken:
            with self._lock:
                path = self._file(namespace)
                scratch = path.with_suffix(".jsonl.tmp")
                scratch.write_text("".join(r.model_dump_json() + "\n" for r in kept), "utf-8")
                scratch.replace(path)  # atomic: a crash leaves the old file or the new one
        return taken

"""`hindsight export` / `import`: the whole memory as portable JSON Lines.

Line 1 is a header (format, schema version, embedding model). Then one line per graph record:
`{"kind": "Episode", "record": {...}}` for nodes, `{"kind": "rel:MENTIONS", "record": {"src",
"dst", ...}}` for relationships (FACT edges included), `{"kind": "archive", ...}` for archived
episodes, and, when asked, `{"kind": "vector", "record": {"id", "dense"}}`. Records hold ids and
plain values only, so any backend can write them back. Importing needs an empty memory; without
embeddings in the file, the points are re-embedded with the same model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.embed import Embedder
from engine.errors import InvalidInput
from engine.forget import Archive, ArchiveRecord
from engine.ingest.pipeline import vector_point, with_more_vectors
from engine.keyword_keys import rekey
from engine.settings import Settings
from engine.stores.base import GraphStore, VectorPayload, VectorStore
from graph_schema import SCHEMA_VERSION

__all__ = ["BackupSummary", "export_memory", "import_memory"]

FORMAT = "hindsight-export/1"


class BackupSummary(BaseModel):
    nodes: int
    relationships: int
    archived: int
    vectors: int


def export_memory(
    graph: GraphStore,
    vectors: VectorStore,
    archive: Archive,
    path: Path,
    *,
    model: str,
    with_embeddings: bool,
) -> BackupSummary:
    records = graph.export_records()
    episodes = [r["id"] for kind, r in records if kind == "Episode"]
    namespaces = sorted({r["namespace"] for kind, r in records if kind == "Episode"})
    archived = [rec for ns in namespaces for rec in archive.records(ns)]
    dense = vectors.dense(episodes) if with_embeddings else {}
    scratch = path.with_suffix(path.suffix + ".tmp")
    with scratch.open("w", encoding="utf-8") as out:
        header = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "model": model}
        out.write(json.dumps({"kind": "header", "record": header}) + "\n")
        for kind, record in records:
            out.write(json.dumps({"kind": kind, "record": record}, ensure_ascii=False) + "\n")
        for rec in archived:
            out.write(json.dumps({"kind": "archive", "record": rec.model_dump(mode="json")},
                                 ensure_ascii=False) + "\n")  # fmt: skip
        for episode_id, vector in dense.items():
            out.write(json.dumps({"kind": "vector", "record": {"id": episode_id, "dense": vector}}) + "\n")
    scratch.replace(path)
    return BackupSummary(
        nodes=sum(not k.startswith("rel:") for k, _ in records),
        relationships=sum(k.startswith("rel:") for k, _ in records),
        archived=len(archived),
        vectors=len(dense),
    )


def _lines(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                yield number, str(item["kind"]), dict(item["record"])
            except (ValueError, KeyError, TypeError) as exc:
                raise InvalidInput("file", f"line {number} is not an export record ({exc})") from None


def import_memory(
    graph: GraphStore,
    vectors: VectorStore,
    embedder: Embedder,
    archive: Archive,
    path: Path,
    *,
    settings: Settings,
) -> BackupSummary:
    """Load an export into this (empty) memory: graph, archive, then the vector mirror."""
    if graph.episode_states():
        raise InvalidInput("file", "import needs an empty memory; this one holds episodes")
    records: list[tuple[str, dict[str, Any]]] = []
    archived: list[ArchiveRecord] = []
    dense: dict[str, list[float]] = {}
    header: dict[str, Any] | None = None
    for number, kind, record in _lines(path):
        if kind == "header":
            header = record
        elif kind == "archive":
            archived.append(ArchiveRecord.model_validate(record))
        elif kind == "vector":
            dense[str(record["id"])] = [float(x) for x in record["dense"]]
        elif number == 1:
            raise InvalidInput("file", "line 1 must be the export header")
        else:
            records.append((kind, record))
    if header is None or header.get("format") != FORMAT:
        raise InvalidInput("file", f"not a {FORMAT} file")
    if header.get("model") != embedder.name:
        dense = {}  # vectors of another model are useless here: re-embed
    graph.import_records(records)
    for cold in archived:
        archive.append(cold.episode.namespace, [cold])
    episodes = [r for kind, r in records if kind == "Episode"]
    mentions: dict[str, list[str]] = {}
    canonical = {r["id"]: r.get("canonical", "") for kind, r in records if kind == "Entity"}
    for kind, r in records:
        if kind == "rel:MENTIONS":
            mentions.setdefault(r["src"], []).append(canonical.get(r["dst"], ""))
    for start in range(0, len(episodes), settings.store_batch_size):
        batch = episodes[start : start + settings.store_batch_size]
        missing = [e for e in batch if e["id"] not in dense]
        if missing:
            for e, vector in zip(missing, embedder.embed([e["content"] for e in missing]), strict=True):
                dense[e["id"]] = list(vector)
        points = [
            vector_point(
                e["id"], e["content"], dense[e["id"]],
                VectorPayload(
                    namespace=e["namespace"], session_id=e.get("session_id"),
                    kind=e.get("kind", "message"), layer=e.get("layer", "episodic"),
                    importance=e.get("importance", 0.5), created_at=e["created_at"],
                    occurred_at=e["occurred_at"], entities=sorted(mentions.get(e["id"], [])),
                    deleted=1 if e.get("deleted_at") is not None else 0,
                ),
                settings,
            )
            for e in batch
        ]  # fmt: skip
        vectors.upsert(
            with_more_vectors(points, {e["id"]: e["content"] for e in batch}, embedder, settings)
        )
    by_namespace: dict[str, list[str]] = {}
    for e in episodes:
        if e.get("deleted_at") is None:
            by_namespace.setdefault(e["namespace"], []).append(e["id"])
    for namespace, ids in by_namespace.items():
        for start in range(0, len(ids), settings.store_batch_size):
            rekey(graph, vectors, namespace, ids[start : start + settings.store_batch_size], settings)
    return BackupSummary(
        nodes=sum(not k.startswith("rel:") for k, _ in records),
        relationships=sum(k.startswith("rel:") for k, _ in records),
        archived=len(archived),
        vectors=len(episodes),
    )

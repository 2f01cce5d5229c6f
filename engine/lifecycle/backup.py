"""`hindsight export` / `import`: the whole memory as portable JSON Lines.

Line 1 is a header (format, schema version, embedding model). Then one line per graph record:
`{"kind": "Episode", "record": {...}}` for nodes, `{"kind": "rel:MENTIONS", "record": {"src",
"dst", ...}}` for relationships (FACT edges included), `{"kind": "archive", ...}` for archived
episodes, and, when asked, `{"kind": "vector", "record": {"id", "dense"}}`. Records hold ids and
plain values only, so any backend can write them back. Importing needs an empty memory; without
embeddings in the file, the points are re-embedded with the same model.

Both take `namespaces`, so that an operator can hand one tenant its own data: an export of
some namespaces holds only their nodes, the relationships between them (relationships never
cross namespaces), their archive and their vectors; an import of some namespaces reads only
their records and needs only those namespaces to be empty.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.embed import Embedder
from engine.errors import InvalidInput
from engine.ingest.pipeline import episode_vectors, vector_point
from engine.keyword_keys import rekey
from engine.settings import Settings
from engine.stores.archive import ArchiveRecord, ArchiveStore
from engine.stores.base import MaintenanceGraph
from engine.stores.vectors import VectorPayload, VectorStore
from engine.views import BackupSummary
from graph_schema import SCHEMA_VERSION

__all__ = ["BackupSummary", "export_memory", "import_memory"]

FORMAT = "hindsight-export/1"


def export_memory(
    graph: MaintenanceGraph,
    vectors: VectorStore,
    archive: ArchiveStore,
    path: Path,
    *,
    model: str,
    with_embeddings: bool,
    namespaces: Collection[str] | None = None,
) -> BackupSummary:
    """Write the memory, or the `namespaces` named (None: every one), to `path`."""
    records = within(graph.export_records(), namespaces)
    episodes = [r["id"] for kind, r in records if kind == "Episode"]
    found = {r["namespace"] for kind, r in records if kind == "Episode"}
    archived = [rec for ns in sorted(found | set(namespaces or ())) for rec in archive.records(ns)]
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
    kinds = [kind for kind, _ in records] + ["archive"] * len(archived) + ["vector"] * len(dense)
    return BackupSummary.of_kinds(kinds)


def within(
    records: Sequence[tuple[str, dict[str, Any]]], namespaces: Collection[str] | None
) -> list[tuple[str, dict[str, Any]]]:
    """The records of `namespaces` (all of them when None): their nodes, and the
    relationships that start at one of those nodes.

    >>> within([("Entity", {"id": "a", "namespace": "x"}), ("Entity", {"id": "b", "namespace": "y"}),
    ...         ("rel:FACT", {"src": "a", "dst": "a"}), ("rel:FACT", {"src": "b", "dst": "b"})], {"x"})
    [('Entity', {'id': 'a', 'namespace': 'x'}), ('rel:FACT', {'src': 'a', 'dst': 'a'})]
    """
    if namespaces is None:
        return list(records)
    kept = {r["id"] for kind, r in records if not kind.startswith("rel:") and r.get("namespace") in namespaces}
    return [(kind, r) for kind, r in records
            if (r.get("src") if kind.startswith("rel:") else r.get("id")) in kept]  # fmt: skip


def _lines(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                yield number, str(item["kind"]), dict(item["record"])
            except (ValueError, KeyError, TypeError) as exc:
                raise InvalidInput("path", f"line {number} is not an export record ({exc})") from None


def import_memory(
    graph: MaintenanceGraph,
    vectors: VectorStore,
    embedder: Embedder,
    archive: ArchiveStore,
    path: Path,
    *,
    settings: Settings,
    namespaces: Collection[str] | None = None,
) -> BackupSummary:
    """Load an export, or the `namespaces` of it named (None: all), into this memory: graph,
    archive, then the vector mirror. The memory, or those namespaces of it, must be empty."""
    held = {namespace for namespace, _ in graph.episode_states().values()}
    if namespaces is None and held:
        raise InvalidInput("path", "import needs an empty memory; this one holds episodes")
    if namespaces is not None and held & set(namespaces):
        raise InvalidInput("namespaces", f"import needs them empty; {sorted(held & set(namespaces))[0]} holds episodes")
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
            raise InvalidInput("path", "line 1 must be the export header")
        else:
            records.append((kind, record))
    if header is None or header.get("format") != FORMAT:
        raise InvalidInput("path", f"not a {FORMAT} file")
    if header.get("model") != embedder.name:
        dense = {}  # vectors of another model are useless here: re-embed
    records = within(records, namespaces)
    if namespaces is not None:
        archived = [cold for cold in archived if cold.episode.namespace in namespaces]
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
        found = episode_vectors(
            [e["content"] for e in batch], embedder, settings,
            known={i: dense[e["id"]] for i, e in enumerate(batch) if e["id"] in dense},
        )  # fmt: skip
        points = [
            vector_point(
                e["id"], e["content"], vectors_of.dense,
                VectorPayload(
                    namespace=e["namespace"], session_id=e.get("session_id"),
                    kind=e.get("kind", "message"), layer=e.get("layer", "episodic"),
                    importance=e.get("importance", 0.5), created_at=e["created_at"],
                    occurred_at=e["occurred_at"], entities=sorted(mentions.get(e["id"], [])),
                    deleted=1 if e.get("deleted_at") is not None else 0,
                ),
                settings, multilingual=vectors_of.multilingual, sentences=vectors_of.sentences,
            )
            for e, vectors_of in zip(batch, found, strict=True)
        ]  # fmt: skip
        vectors.upsert(points)
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

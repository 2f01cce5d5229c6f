"""The one place that chooses backends, from settings. Nothing outside `engine/stores/`
knows which backend runs."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import NamedTuple

from engine.errors import InvalidInput, StoreUnavailable
from engine.settings import Settings
from engine.stores.archive import ArchiveStore
from engine.stores.base import GraphStore
from engine.stores.jsonl_archive import JsonlArchive
from engine.stores.vectors import VectorStore

__all__ = ["OpenStores", "open_archive", "open_stores"]

log = logging.getLogger(__name__)


class OpenStores(NamedTuple):
    graph: GraphStore
    vectors: VectorStore  # the episodes' mirror
    facts: VectorStore  # the active facts' points (engine/fact_points.py), rebuildable
    digests: VectorStore  # the session digests' points (engine/reflect/digests.py), rebuildable


def open_stores(
    settings: Settings,
    *,
    model: str,
    dimension: int,
    multilingual: tuple[str, int] | None = None,
    vectors_aside: Path | None = None,
) -> OpenStores:
    """Open the graph, the episodes' vector store, the facts' and the digests' (creating them
    when missing).

    The vector collection is named with the embedding model and dimension (and the
    multilingual model's, `(name, dimension)`, when CJK text gets a second vector), so
    switching models starts a new mirror instead of mixing incompatible vectors. `vectors_aside`: the
    embedded vector store is moved there, once the graph holds the data directory (so that
    no other process has it open), and an empty one is started.
    """
    if vectors_aside is not None and not _on_edge(settings):
        raise InvalidInput("vectors_aside", "only the embedded vector store can be set aside; "
                           "with a Qdrant server, delete the collection and run doctor --repair")  # fmt: skip
    graph = _open_graph(settings)
    try:
        if vectors_aside is not None and settings.vectors_dir.exists():
            _set_aside(settings.vectors_dir, vectors_aside)
        name = f"{model}-{dimension}" + (f"+{multilingual[0]}-{multilingual[1]}" if multilingual else "")
        vectors, facts, digests = _open_vectors(settings, name, dimension, multilingual[1] if multilingual else None)
    except StoreUnavailable:
        graph.close()
        raise
    return OpenStores(graph, vectors, facts, digests)


def open_archive(settings: Settings) -> ArchiveStore:
    """The archive of the data directory (JSON Lines files, whatever the graph backend)."""
    return JsonlArchive(settings.data_dir / "archive")


def _set_aside(directory: Path, target: Path) -> None:
    try:
        directory.rename(target)
    except OSError as exc:
        raise StoreUnavailable(f"cannot set the vector store aside to {target}: {exc}") from exc
    log.warning("vector store set aside: %s -> %s", directory, target)


def _open_graph(settings: Settings) -> GraphStore:
    if settings.backend == "embedded":
        from engine.stores.ladybug_graph import LadybugGraphStore

        return LadybugGraphStore(
            settings.graph_path,
            settings.graph_threads,
            index_episodes=settings.graph_index_episodes,
            access_batch=settings.access_batch,
            cache_episodes=settings.graph_cache_episodes,
        )
    from engine.stores.neo4j_graph import Neo4jGraphStore

    return Neo4jGraphStore(
        settings.neo4j_uri,
        user=settings.neo4j_user,
        password=settings.neo4j_password.get_secret_value(),
        database=settings.neo4j_database,
        attempts=settings.connect_attempts,
        access_write_seconds=settings.access_write_seconds,
    )


def _on_edge(settings: Settings) -> bool:
    if settings.vector_store == "auto":
        return settings.backend == "embedded"
    return settings.vector_store == "edge"


def _open_vectors(
    settings: Settings, name: str, dimension: int, multilingual: int | None
) -> tuple[VectorStore, VectorStore, VectorStore]:
    """The episodes' collection, and the facts' and the digests' beside it (`<name>-facts`,
    `<name>-digests`)."""
    if _on_edge(settings):
        from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore

        def shard(of: str, threads: int | None) -> VectorStore:
            return QdrantEdgeVectorStore(
                settings.vectors_dir / of,
                dimension,
                multilingual=multilingual,
                search_threads=threads,
                index_threshold_kb=settings.vector_index_threshold_kb,
            )

        opened = [shard(name, settings.vector_search_threads)]
        try:
            # Facts and digests are few beside episodes, and one search of each runs per recall.
            opened.append(shard(f"{name}-facts", 1))
            opened.append(shard(f"{name}-digests", 1))
        except StoreUnavailable:
            for store in opened:
                store.close()
            raise
        return opened[0], opened[1], opened[2]
    from qdrant_client import QdrantClient

    from engine.stores.qdrant_server_vectors import QdrantServerVectorStore

    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        # The client's version check is off on purpose: it only warns (qdrant-client 1.20 of a
        # 1.18 server, two minors away), while the store asks nothing 1.18 lacks (per-namespace
        # IDF is counted here, not by the server) and CI runs every server case on 1.18.3. The
        # store's first call is retried and fails clearly when no server answers.
        client = QdrantClient(url=settings.qdrant_url, api_key=key, prefer_grpc=settings.qdrant_grpc,
                              grpc_port=settings.qdrant_grpc_port, check_compatibility=False)  # fmt: skip
    else:
        path = settings.data_dir / "qdrant-local"
        log.warning("QDRANT_URL is not set: using qdrant-client local mode at %s", path)
        client = QdrantClient(path=str(path))
    # One client for both collections: qdrant-client's local mode locks its directory.
    collection = f"{settings.qdrant_collection_prefix}-{name}"

    def of(name: str) -> VectorStore:
        return QdrantServerVectorStore(client, name, dimension, multilingual=multilingual,
                                       attempts=settings.connect_attempts,
                                       request_attempts=settings.qdrant_request_attempts,
                                       shards=settings.qdrant_shards,
                                       replication=settings.qdrant_replication_factor,
                                       count_threads=settings.qdrant_count_threads,
                                       idf_seconds=settings.qdrant_idf_cache_seconds)  # fmt: skip

    return of(collection), of(f"{collection}-facts"), of(f"{collection}-digests")

"""The one place that chooses backends, from settings."""

from __future__ import annotations

from engine.errors import StoreUnavailable
from engine.settings import Settings
from engine.stores.base import GraphStore, VectorStore
from engine.stores.ladybug_graph import LadybugGraphStore
from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore

__all__ = ["open_stores"]


def open_stores(settings: Settings, *, model: str, dimension: int) -> tuple[GraphStore, VectorStore]:
    """Open the graph and vector stores the settings name (creating them when missing).

    The vector collection is named with the embedding model and dimension, so switching
    models starts a new mirror instead of mixing incompatible vectors.
    """
    if settings.backend == "embedded":
        graph = LadybugGraphStore(settings.graph_path)
        try:
            vectors = QdrantEdgeVectorStore(
                settings.vectors_dir / f"{model}-{dimension}", dimension
            )
        except StoreUnavailable:
            graph.close()
            raise
        return graph, vectors
    raise StoreUnavailable(f"unknown backend: {settings.backend}")

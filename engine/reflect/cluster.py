"""Cluster recent episodes by embedding similarity. Pure.

Episodes are nodes; an edge joins two at or above the threshold (cosine); clusters are the
connected components (networkx). A cluster is one topic revisited: its episodes are the
evidence a fact is drawn from together.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["cluster_ids"]


def cluster_ids(
    ids: Sequence[str], vectors: Sequence[Sequence[float]], *, threshold: float
) -> list[list[str]]:
    """Connected components of the similarity graph, largest first, ids in input order.

    >>> cluster_ids(["a", "b", "c"], [[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]], threshold=0.85)
    [['a', 'b'], ['c']]
    """
    if not ids:
        return []
    import networkx as nx  # here, not at the top: opening a memory need not load it

    matrix = np.asarray(vectors, dtype=np.float32)
    similar = np.argwhere(np.triu(matrix @ matrix.T, k=1) >= threshold)
    graph = nx.Graph()
    graph.add_nodes_from(range(len(ids)))
    graph.add_edges_from((int(i), int(j)) for i, j in similar)
    components = [sorted(c) for c in nx.connected_components(graph)]
    components.sort(key=lambda c: (-len(c), c[0]))
    return [[ids[i] for i in component] for component in components]

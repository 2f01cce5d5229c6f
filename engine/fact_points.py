"""Facts found by what is asked: each active fact as a point of the facts' vector store.

A fact is read as one sentence, "Sam works at Microsoft: I started a new job at Microsoft
last week.", its relation in words and the statement it was drawn from; that text is
embedded and keyword-indexed like an episode, under the fact's namespace. The points mirror
the graph's active FACT edges: reflection writes the facts it writes and marks the ones it
closes deleted, `doctor` compares and rebuilds them, an import or a merge of entities rebuilds the
namespace's. The graph stays the source of truth; recall reads each fact found from it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.embed import Embedder
from engine.embed.multilingual import multilingual_vectors
from engine.fact_text import fact_text
from engine.keyword_keys import KEY_VERSION, own_key
from engine.settings import Settings
from engine.stores.base import MaintenanceGraph
from engine.stores.vectors import VectorPayload, VectorPoint, VectorStore
from engine.views import Fact

__all__ = ["live_fact_points", "rebuild_fact_points", "write_fact_points"]

def write_fact_points(
    store: VectorStore, embedder: Embedder, facts: Sequence[Fact], namespace: str, settings: Settings
) -> None:
    """Embed and upsert the points of these facts (new, or reinforced with a newer statement)."""
    if not facts:
        return
    texts = [fact_text(f) for f in facts]
    dense = embedder.embed(texts)
    second = multilingual_vectors(embedder.multilingual, texts)
    store.upsert([
        VectorPoint(
            id=fact.id,
            dense=list(vector),
            multilingual=None if other is None else list(other),
            sparse=own_key(text, settings),
            payload=VectorPayload(
                namespace=namespace, session_id=None, kind="fact", layer="semantic",
                importance=fact.confidence, created_at=fact.valid_from,
                occurred_at=fact.refers_to if fact.refers_to is not None else fact.valid_from,
                entities=sorted({fact.subject_id, fact.object_id}), key_version=KEY_VERSION,
            ),
        )
        for fact, text, vector, other in zip(facts, texts, dense, second, strict=True)
    ])  # fmt: skip


def rebuild_fact_points(
    graph: MaintenanceGraph, store: VectorStore, embedder: Embedder, namespace: str,
    settings: Settings, *, batch: int = 256,
) -> int:  # fmt: skip
    """Make the namespace's points mirror its active facts: every one written again, the
    points of facts no longer active dropped. Returns how many facts it wrote."""
    facts = graph.active_facts(namespace)
    for start in range(0, len(facts), batch):
        write_fact_points(store, embedder, facts[start : start + batch], namespace, settings)
    active = {f.id for f in facts}
    store.mark_deleted(sorted(i for i, p in live_fact_points(store).items() if p.namespace == namespace and i not in active))
    return len(facts)


def live_fact_points(store: VectorStore) -> dict[str, VectorPayload]:
    """The points of the facts' store not marked deleted, by id.

    A fact that is closed, or gone from the graph, keeps its point marked deleted, as a
    forgotten episode's is: every search leaves it out, and `doctor` counts only these."""
    return {i: p for i, p in store.all_payloads().items() if not p.deleted}

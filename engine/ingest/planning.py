"""Planning a batch: each text becomes a `PlannedEpisode` with every choice made. Pure."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from engine.ingest.batch_texts import BatchText
from engine.ingest.extract import decision_topics, find_numbers
from engine.ingest.pipeline import (
    PlannedDecision,
    PlannedEntity,
    PlannedEpisode,
    about_entities,
    entity_id,
)
from engine.signatures import ENTITY_TYPE, Signature
from engine.text import canonical_name

__all__ = ["plan_episodes", "request_indices", "signature_entity"]


def signature_entity(namespace: str, signature: Signature) -> PlannedEntity:
    """The SIGNATURE entity of an error, keyed by its signature; the head alone ("http 503",
    "modulenotfounderror") is its alias where the head names something."""
    return PlannedEntity(id=entity_id(namespace, signature.key), name=signature.name, canonical=signature.key,
                         type=ENTITY_TYPE, alias=signature.alias)  # fmt: skip


def plan_episodes(
    texts: Sequence[BatchText], resolved: Mapping[str, Mapping[str, PlannedEntity]]
) -> list[PlannedEpisode]:
    """An episode per text with every choice made: the entities its names resolved to
    (`resolved`: per namespace, canonical name -> entity), its decisions and what they are
    about, and the links between a whole and its chunks."""
    chunks_of: dict[int, list[str]] = {}
    for text in texts:
        if text.chunk_index is not None:
            chunks_of.setdefault(text.request_index, []).append(text.id)
    whole_id = {t.request_index: t.id for t in texts if t.chunk_index is None}
    planned = []
    for text in texts:
        table = resolved.get(text.request.namespace, {})
        mentioned: dict[str, PlannedEntity] = {}
        for raw in text.entities:
            entity = table.get(canonical_name(raw.name))
            if entity is not None and entity.id not in mentioned:
                mentioned[entity.id] = entity.model_copy(update={"name": raw.name})
        if text.signature is not None:
            # The error a failing step shows: the next occurrence meets this one at it; a stated
            # lesson meets the stored signature its error names.
            stored = text.signature_entity
            signature = signature_entity(text.request.namespace, text.signature) if stored is None else PlannedEntity(
                id=stored.id, name=stored.name, canonical=stored.canonical, type=stored.type)  # fmt: skip
            mentioned.setdefault(signature.id, signature)
        entities = list(mentioned.values())
        decisions = [
            PlannedDecision(
                id=str(uuid.uuid4()),
                text=sentence,
                about=(about := about_entities(sentence, entities)),
                subjects=[f"entity:{e}" for e in about] + decision_topics(sentence),
            )
            for sentence in text.decisions
        ]
        is_chunk = text.chunk_index is not None
        planned.append(
            PlannedEpisode(
                id=text.id,
                request=text.request,
                importance=text.importance,
                embedding=text.embedding,
                multilingual=text.multilingual,
                sentences=text.sentences,
                entities=entities,
                decisions=decisions,
                numbers=find_numbers(text.request.content),
                todos=text.todos,
                redacted=text.redacted,
                parent_id=whole_id[text.request_index] if is_chunk else None,
                chunk_index=text.chunk_index,
                chunk_ids=[] if is_chunk else chunks_of.get(text.request_index, []),
            )
        )
    return planned


def request_indices(planned: Sequence[PlannedEpisode], texts: Sequence[BatchText]) -> list[int]:
    """The index of the request each planned episode came from."""
    index = {t.id: t.request_index for t in texts}
    return [index[p.id] for p in planned]

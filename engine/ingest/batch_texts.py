"""The texts of one store batch: each request redacted, and long content also cut into chunks.

Every text is embedded and extracted on its own and becomes an episode; a chunk points back
to its request (`request_index`) and is linked `PART_OF` to the whole when written.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence

from pydantic import BaseModel

from engine.ingest.chunk import chunk_text
from engine.ingest.redact import redact_request
from engine.inputs import StoreRequest
from engine.models import Entity
from engine.nlp import RawEntity
from engine.settings import Settings
from engine.signatures import Signature
from engine.text import count_tokens

__all__ = ["BatchText", "batch_texts"]


class BatchText(BaseModel):
    """One text to embed and extract: a whole request, or one chunk of it; the writer fills
    in what the models and the rules find in it."""

    id: str
    request: StoreRequest
    request_index: int
    chunk_index: int | None = None
    redacted: dict[str, int]
    entities: list[RawEntity] = []
    decisions: list[str] = []
    todos: list[str] = []
    llm_importance: float | None = None
    embedding: list[float] = []
    multilingual: list[float] | None = None
    sentences: list[list[float]] = []
    importance: float = 0.0
    signature: Signature | None = None  # the error a failing step shows (`engine.work`)
    # The stored SIGNATURE entity a stated lesson is about, when one matches its error.
    signature_entity: Entity | None = None


def batch_texts(
    requests: Sequence[StoreRequest], settings: Settings, pii: dict[str, re.Pattern[str]]
) -> list[BatchText]:
    """Each request redacted (with `settings.redact_pii`, by the compiled `pii` patterns too),
    followed by its chunks when its content is over `chunk_max_tokens`."""
    texts: list[BatchText] = []
    for index, request in enumerate(requests):
        redacted: dict[str, int] = {}
        if settings.redact_pii:
            request, redacted = redact_request(request, pii)
        texts.append(BatchText(id=request.episode_id or str(uuid.uuid4()), request=request, request_index=index,
                               redacted=redacted))  # fmt: skip
        if count_tokens(request.content) > settings.chunk_max_tokens:
            chunks = chunk_text(
                request.content, max_tokens=settings.chunk_max_tokens, min_tokens=settings.chunk_min_tokens
            )
            for position, chunk in enumerate(chunks):
                part = request.model_copy(update={"content": chunk, "related_ids": []})
                texts.append(
                    BatchText(id=str(uuid.uuid4()), request=part, request_index=index,
                              chunk_index=position, redacted={})
                )  # fmt: skip
    return texts

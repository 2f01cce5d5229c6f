"""The models of one store batch: its embedding on the model thread, NER on the writer's.

The embedder leaves the GIL while it computes, so the model thread embeds a batch while the
writing thread runs NER (and an LLM call) on it; then the writing thread takes a share of what
is left. In `Writer.write_batches` a batch starts, NER included, before the one ahead of it is
embedded to the end and written: the model thread embeds without a pause, while the writing
thread runs NER and writes beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent import futures
from concurrent.futures import Executor
from dataclasses import dataclass

from engine.embed import Embedder, SharedBatch
from engine.ingest.sentences import by_text, mean_vector
from engine.llm import Extractor, LLMExtraction
from engine.nlp import RawEntity, find_entities

__all__ = ["BatchModels", "ModelOutputs"]


@dataclass(frozen=True)
class ModelOutputs:
    """What the models found in each text of a batch, in order."""

    entities: list[list[RawEntity]]
    vectors: list[list[float]]
    # Whether each text's vector is its own pass through the model, not its sentences' mean.
    whole: list[bool]
    # The vectors of each text's sentences (`engine.ingest.sentences`); empty for most.
    sentence_vectors: list[list[list[float]]]
    answers: list[LLMExtraction | None]  # the LLM's, None where none was asked or it failed


class BatchModels:
    """A batch whose embedding has started on the model thread: `extract` runs NER (and the
    LLM) on the calling thread meanwhile, `finish` joins the embedding and returns it all."""

    def __init__(
        self, embedder: Embedder, pool: Executor, texts: Sequence[str], part_size: int,
        sentences: Sequence[Sequence[str]] = (), *, embed_whole: bool = True,
    ) -> None:  # fmt: skip
        """`sentences`: the sentences of each text to embed on their own (none: no text's),
        in the same shared batch, so that both threads take them as they take texts. Without
        `embed_whole`, a text with sentences takes their mean for its vector instead of a
        pass of its own (`Settings.embed_whole`)."""
        self._texts = list(texts)
        self._sentence_counts = [len(s) for s in sentences] or [0] * len(self._texts)
        self._whole = [embed_whole or count == 0 for count in self._sentence_counts]
        flat = [sentence for of_text in sentences for sentence in of_text]
        own = [text for text, whole in zip(self._texts, self._whole, strict=True) if whole]
        self._shared = SharedBatch(embedder, own + flat, part_size)
        self._helper = pool.submit(self._shared.work)
        self._entities: list[list[RawEntity]] = []
        self._answers: list[LLMExtraction | None] = []

    def extract(self, extractor: Extractor | None) -> None:
        """NER, and the LLM where one is configured, while the model thread embeds."""
        self._entities = find_entities(self._texts)
        self._answers = extractor.extract(self._texts) if extractor else [None] * len(self._texts)

    def finish(self) -> ModelOutputs:
        """Take a share of the embedding left, then wait for the model thread's.

        Raises:
            whatever the embedder raised; the model thread has left the batch by then.
        """
        try:
            self._shared.work()
        finally:
            futures.wait([self._helper])  # never leave the model thread writing into a dead batch
        self._helper.result()  # its failure, if it had one
        rows = self._shared.vectors()
        own = iter(rows[: sum(self._whole)])
        of_sentences = by_text(rows[sum(self._whole) :], self._sentence_counts)
        vectors = [
            next(own) if whole else mean_vector(said) for whole, said in zip(self._whole, of_sentences, strict=True)
        ]
        return ModelOutputs(
            entities=self._entities, vectors=vectors, whole=self._whole, answers=self._answers,
            sentence_vectors=of_sentences,
        )  # fmt: skip

    def abandon(self) -> None:
        """Drop the batch unfinished: the model thread skips it if it has not begun, and is
        waited for if it has."""
        self._helper.cancel()
        futures.wait([self._helper])

"""The vectors of a session's sentences, for its digest's central sentences: read from the
vector store where ingest embedded them already (`engine/ingest/sentences.py`), embedded here
only where it did not, so that digesting a session costs a lookup rather than a model pass."""

from __future__ import annotations

from collections.abc import Sequence

from engine.embed import Embedder
from engine.ingest.sentences import as_embedded, stored_by_sentence
from engine.models import Episode
from engine.reflect.digest import worth_a_vector
from engine.stores.vectors import VectorStore

__all__ = ["sentence_vectors"]


def sentence_vectors(
    embedder: Embedder, store: VectorStore, episodes: Sequence[Episode],
    sentences: Sequence[tuple[str, str | None, str]], chinese: bool,
) -> list[list[float]]:  # fmt: skip
    """One vector per sentence (episode id, speaker, text) of the session, in the space that
    reads its language; a zero vector for a sentence of no weight (`worth_a_vector`), which
    is neither picked nor counted. An English sentence's vector is its episode's point's for
    it where the point has one, else made as ingest makes them (with the speaker label the
    content starts with), so that the session's vectors are alike wherever they come from."""
    wanted = [i for i, (_, _, text) in enumerate(sentences) if worth_a_vector(text)]
    if not wanted:
        return [[] for _ in sentences]
    if chinese and embedder.multilingual is not None:
        made = embedder.multilingual.embed([sentences[i][2] for i in wanted])
        found: dict[int, Sequence[float]] = dict(zip(wanted, made, strict=True))
    else:
        found = _english(embedder, store, {e.id: e.content for e in episodes}, sentences, wanted)
    empty = [0.0] * len(next(iter(found.values())))
    return [list(found.get(i, empty)) for i in range(len(sentences))]


def _english(
    embedder: Embedder, store: VectorStore, content: dict[str, str],
    sentences: Sequence[tuple[str, str | None, str]], wanted: list[int],
) -> dict[int, Sequence[float]]:  # fmt: skip
    stored = store.sentence_vectors(sorted({sentences[i][0] for i in wanted}))
    known = {
        episode_id: stored_by_sentence(content[episode_id], rows)
        for episode_id, rows in stored.items()
    }
    found: dict[int, Sequence[float]] = {}
    missing: list[int] = []
    for i in wanted:
        episode_id, _, text = sentences[i]
        vector = known.get(episode_id, {}).get(text)
        if vector is None:
            missing.append(i)
        else:
            found[i] = vector
    if missing:
        texts = [as_embedded(content[sentences[i][0]], sentences[i][2]) for i in missing]
        found.update(zip(missing, embedder.embed(texts), strict=True))
    return found

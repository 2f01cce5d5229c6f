"""The embedder: bfloat16 arithmetic gives the float32 vectors, to a cosine of 0.9999."""

from __future__ import annotations

import numpy as np

from engine.embed import MiniLMEmbedder, _minilm, embedder_for
from engine.settings import Settings

TEXTS = [
    "We decided to move the Atlas database to PostgreSQL.",
    "ok thanks",
    "Priya needs to finish the security audit before the Kestrel demo on day 12.",
    "What did Marco say about the launch date?",
]


def test_bfloat16_vectors_match_float32() -> None:
    full = np.array(MiniLMEmbedder("float32").embed(TEXTS))
    half = np.array(MiniLMEmbedder("bfloat16").embed(TEXTS))
    assert half.shape == full.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(half, axis=1), 1.0, atol=1e-5)  # still unit length
    cosines = (full * half).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    # The nearest neighbours do not change: each query finds the same text first.
    assert ((half @ half.T).argsort(axis=1)[:, -2] == (full @ full.T).argsort(axis=1)[:, -2]).all()


def test_precision_comes_from_the_settings() -> None:
    assert MiniLMEmbedder("float32").bfloat16 is False
    assert MiniLMEmbedder("bfloat16").bfloat16 is True
    chosen = embedder_for("minilm", Settings(embedder_precision="float32").embedder_precision)
    assert isinstance(chosen, MiniLMEmbedder) and chosen.bfloat16 is False


def test_a_query_embeds_on_its_cores_and_gives_the_caller_its_own_back() -> None:
    import torch

    seen: list[int] = []
    model = _minilm()
    encode = model.encode

    def spying(*args: object, **kwargs: object) -> object:
        seen.append(torch.get_num_threads())
        return encode(*args, **kwargs)

    before = torch.get_num_threads()
    one_core = MiniLMEmbedder("float32", query_threads=1)
    model.encode = spying
    try:
        query = one_core.embed(TEXTS[:1])
        batch = one_core.embed(TEXTS)
    finally:
        del model.encode  # the instance attribute goes; the class's method shows again
    assert seen == [1, before]  # a lone text on one core; a batch on torch's default
    assert torch.get_num_threads() == before  # the caller's thread count is its own again
    same = np.array(MiniLMEmbedder("float32").embed(TEXTS[:1]))
    assert float((np.array(query) * same).sum()) > 0.99999  # the same vector, on fewer cores
    assert np.allclose(batch[0], query[0], atol=1e-5)

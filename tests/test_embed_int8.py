"""int8 embeddings: ONNX Runtime's quantization of the float32 export, made once and cached,
checked against float32, each text's vector its own, and never importing torch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from engine.embed import MiniLMEmbedder, onnx
from engine.embed.onnx import cache_file, quantized_file
from engine.machine import machine_report
from engine.settings import Settings
from engine.settings.stores import default_model_cache
from tests.test_embed import torch_after_embedding

TEXTS = [
    "We decided to move the Atlas database to PostgreSQL.",
    "ok thanks",
    "Priya needs to finish the security audit before the Kestrel demo on day 12.",
    "What did Marco say about the launch date?",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I've been practicing the clarinet every evening after the kids sleep.",
]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A cache holding the float32 export alone (copied: exporting takes ~12 s)."""
    MiniLMEmbedder("float32").embed(TEXTS[:1])
    shutil.copy(cache_file(default_model_cache()), cache_file(tmp_path))
    return tmp_path


def test_int8_vectors_stay_close_to_float32(cache: Path) -> None:
    full = np.array(MiniLMEmbedder("float32", cache_dir=cache).embed(TEXTS))
    quarter = np.array(MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS))
    cosines = (full * quarter).sum(axis=1)
    assert cosines.min() > 0.95 and cosines.mean() > 0.98, cosines
    assert not np.array_equal(full, quarter)  # int8 weights did the work


def test_int8_finds_what_float32_finds(cache: Path) -> None:
    questions = [
        "Which database does Atlas use now?",
        "When is the Kestrel demo?",
        "Where did Caroline go yesterday?",
        "What instrument does Melanie practice?",
    ]
    stored = [TEXTS[i] for i in (0, 2, 4, 5)]
    for precision in ("float32", "int8"):
        embedder = MiniLMEmbedder(precision, cache_dir=cache)
        asked = np.array([embedder.embed([q])[0] for q in questions])
        assert ((asked @ np.array(embedder.embed(stored)).T).argmax(axis=1) == [0, 1, 2, 3]).all(), precision


def test_a_texts_int8_vector_is_the_same_in_any_batch_and_as_a_query(cache: Path) -> None:
    embedder = MiniLMEmbedder("int8", cache_dir=cache)
    together = np.array(embedder.embed(TEXTS))
    backwards = np.array(embedder.embed(TEXTS[::-1]))[::-1]
    alone = np.array([embedder.embed([text])[0] for text in TEXTS])  # a query's session
    # Dynamic quantization scales by the whole run: batched, each vector moved with the others.
    assert np.allclose(together, backwards, atol=1e-6)
    assert np.allclose(together, alone, atol=1e-6)
    repeated = np.array(embedder.embed([TEXTS[1], TEXTS[0], TEXTS[1]]))  # embedded once, given twice
    assert np.allclose(repeated, together[[1, 0, 1]], atol=1e-6)


def test_the_int8_model_is_made_once_and_loads_without_torch(cache: Path) -> None:
    MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS)
    assert quantized_file(cache).exists()
    no_second = "onnx.quantize_minilm = None  # a second quantization would fail"
    assert not torch_after_embedding("int8", cache, ["the Atlas database", "the launch date"], first=no_second)


def test_an_int8_model_that_disagrees_is_not_used(
    cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(onnx, "_agreement", lambda float32, quantized: 0.5)
    vectors = MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS)
    assert "disagrees with float32 (cosine 0.5000): texts embed in float32" in caplog.text
    float32 = MiniLMEmbedder("float32", cache_dir=cache).embed(TEXTS)
    assert np.allclose(vectors, float32, atol=1e-5)
    assert not quantized_file(cache).exists()
    # Noted: the next process embeds in float32 at once, and `hindsight info` says so.
    monkeypatch.setattr(onnx, "quantize_minilm", None)  # a second quantization would fail
    assert np.allclose(MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS), float32, atol=1e-5)
    [chosen] = [c for c in machine_report(Settings(model_cache_dir=cache)).choices if c.name == "embedder_precision"]
    assert chosen.value == "float32" and "disagreed" in chosen.why


def test_a_refusal_noted_under_another_onnxruntime_is_tried_again(cache: Path) -> None:
    onnx.refusal_file(cache).write_text(json.dumps({"cosine": 0.5, "onnxruntime": "0.0.1"}))
    assert onnx.int8_refused(cache) is None
    MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS[:2])
    assert quantized_file(cache).exists()  # quantized, checked and kept this time


def test_the_precision_setting_offers_int8() -> None:
    assert Settings(embedder_precision="int8").embedder_precision == "int8"
    with pytest.raises(ValueError, match="embedder_precision"):
        Settings(embedder_precision="int4")

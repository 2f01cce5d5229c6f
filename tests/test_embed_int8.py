"""int8 batches: ONNX Runtime's quantization of the float32 export, made once and cached,
checked against float32, and never importing torch."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.embed import MiniLMEmbedder, onnx
from engine.embed.onnx import cache_file, quantized_file
from engine.settings import Settings
from engine.settings.stores import default_model_cache

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


def test_int8_batches_stay_close_to_float32_and_queries_are_float32(cache: Path) -> None:
    full = np.array(MiniLMEmbedder("float32", cache_dir=cache).embed(TEXTS))
    embedder = MiniLMEmbedder("int8", cache_dir=cache)
    quarter = np.array(embedder.embed(TEXTS))
    cosines = (full * quarter).sum(axis=1)
    assert cosines.min() > 0.95 and cosines.mean() > 0.98, cosines
    assert not np.array_equal(full, quarter)  # int8 weights did the work
    assert ((quarter @ quarter.T).argsort(axis=1)[:, -2] == (full @ full.T).argsort(axis=1)[:, -2]).all()
    assert np.allclose(embedder.embed(TEXTS[:1])[0], full[0], atol=1e-6)  # one text: float32


def test_the_int8_model_is_made_once_and_loads_without_torch(cache: Path) -> None:
    MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS)
    assert quantized_file(cache).exists()
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from engine.embed import MiniLMEmbedder, int8\n"
        "int8.quantize_minilm = None  # a second quantization would fail\n"
        f"embedder = MiniLMEmbedder('int8', cache_dir=Path({str(cache)!r}))\n"
        "assert len(embedder.embed(['the Atlas database', 'the launch date'])) == 2\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stderr


def test_an_int8_model_that_disagrees_is_not_used(
    cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(onnx, "_agreement", lambda float32, quantized: 0.5)
    vectors = MiniLMEmbedder("int8", cache_dir=cache).embed(TEXTS)
    assert "disagrees with float32 (cosine 0.5000): batches embed in float32" in caplog.text
    assert vectors == MiniLMEmbedder("float32", cache_dir=cache).embed(TEXTS)
    assert not quantized_file(cache).exists()


def test_the_precision_setting_offers_int8() -> None:
    assert Settings(embedder_precision="int8").embedder_precision == "int8"
    with pytest.raises(ValueError, match="embedder_precision"):
        Settings(embedder_precision="int4")

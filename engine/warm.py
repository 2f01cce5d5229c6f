"""Warming up: load every model the first store, recall or reflection would otherwise wait
for, so that the first call is as fast as the next (`Memory.warm`, which `hindsight serve`
runs in the background as it starts)."""

from __future__ import annotations

from engine.embed import Embedder
from engine.nlp import find_entities, parse_english
from engine.text import tokenize

__all__ = ["warm_up"]


def warm_up(embedder: Embedder) -> None:
    """Load what the first store, recall or reflection would wait for: the embedder's query
    and batch paths (and the multilingual space), spaCy's NER and parser, jieba and LAC."""
    embedder.embed(["warming up"])
    embedder.embed(["warming up", "the batch path"])
    if embedder.multilingual is not None:
        embedder.multilingual.embed(["预热"])
    find_entities(["Dana met Sam in Berlin.", "王先生在北京工作。"])
    parse_english(["I moved to Berlin last year."])
    tokenize("moved the budget: 预算改成50万")  # the stemmer and jieba

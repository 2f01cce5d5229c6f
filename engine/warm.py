"""Warming up: load every model the first store, recall or reflection would otherwise wait
for, so that the first call is as fast as the next (`Memory.warm`, which `hindsight serve`
runs in the background as it starts)."""

from __future__ import annotations

from collections.abc import Callable

from engine.embed import Embedder, MiniLMEmbedder
from engine.nlp import find_entities, parse_english
from engine.text import tokenize

__all__ = ["warm_up"]


def warm_up(embedder: Embedder, rehearse: Callable[[], None]) -> None:
    """Load what the first store, recall or reflection would wait for, and `rehearse` stores.

    What an English store needs comes first (the query's model, spaCy's NER, the stemmer),
    then the rehearsal; a store sent meanwhile waits only for what it uses. Then the batch
    path (the int8 model's batch session; torch where batches run in bf16, ~5 s, more than
    all the rest), Chinese (LAC, jieba, the multilingual space) and reflection's readers
    (spaCy's parser, jieba's tagger)."""
    embedder.embed(["warming up"])
    find_entities(["Dana met Sam in Berlin."])
    tokenize("moved the budget")
    rehearse()
    if isinstance(embedder, MiniLMEmbedder):
        embedder.load_batch_model()
    else:
        embedder.embed(["warming up", "the batch path"])
    find_entities(["王先生在北京工作。"])
    tokenize("预算改成50万")
    if embedder.multilingual is not None:
        embedder.multilingual.embed(["预热"])
    parse_english(["I moved to Berlin last year."])
    from engine.reflect.statements_zh import chinese_statements  # reflection's modules load with it

    chinese_statements("我去年搬到了柏林。")

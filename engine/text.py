"""Pure text functions shared by ingest and recall: tokens, canonical names, BM25 weights.

Chinese runs are segmented with jieba; everything else is split on word characters. The same
tokenizer builds the keyword index and the keyword query, so they always agree.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from engine.loading import loaded_once

__all__ = [
    "bm25_document",
    "bm25_query",
    "canonical_name",
    "has_cjk",
    "normalize",
    "split_sentences",
    "token_id",
    "tokenize",
    "word_bounds",
]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+(?:[._\-'][^\W_]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")

EN_STOPWORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had", "having", "i", "me", "my", "we", "our", "us", "you", "your", "he", "him", "his", "she", "her", "it", "its", "they", "them", "their", "this", "that", "these", "those", "there", "here", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "not", "no", "nor", "too", "very", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "just", "about", "into", "over", "under", "again", "also", "than", "only", "own", "same", "such", "up", "down", "out", "off", "all", "any", "both", "each", "few", "more", "most", "other", "some", "s", "t", "don", "ok", "okay", "yes", "yeah", "oh", "hi", "hello", "thanks", "thank", "please", "let", "lets"]
)
ZH_STOPWORDS = frozenset(
    ["的", "了", "是", "我", "你", "他", "她", "它", "们", "我们", "你们", "他们", "在", "和", "与", "就", "都", "也", "还", "很", "吗", "呢", "吧", "啊", "呀", "这", "那", "这个", "那个", "一个", "有", "没有", "不", "要", "会", "能", "可以", "把", "被", "让", "给", "对", "说", "好", "啦", "嗯", "哦"]
)
_HONORIFICS = re.compile(r"^(mr|mrs|ms|miss|dr|prof|sir|madam)\.?\s+")
_ZH_HONORIFIC_SUFFIX = re.compile(r"(先生|女士|小姐|老师|同学|总|经理)$")


def normalize(text: str) -> str:
    """NFKC (full-width to half-width) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


@loaded_once
def _jieba() -> Any:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    """The Snowball (Porter 2) stem of an English word: 'vacationed' finds 'vacation'.

    Words with digits (codes, versions) are kept whole. A full stem, not a plural-only one:
    conversation turns use a verb's other forms for what a question asks.
    """
    if not word.isalpha() or not word.isascii():
        return word
    return str(_stemmer().stemWord(word))


def tokenize(text: str) -> list[str]:
    """Index terms of a text: stemmed English words, jieba words for Chinese, no stopwords.

    >>> tokenize("The projects moved to PostgreSQL; 预算改成50万")
    ['project', 'move', 'postgresql', '预算', '改成', '50', '万']
    """
    tokens: list[str] = []
    position = 0
    norm = normalize(text)
    for match in _CJK.finditer(norm):
        tokens.extend(_latin_tokens(norm[position : match.start()]))
        for word in _jieba().lcut(match.group()):
            if word.strip() and word not in ZH_STOPWORDS:
                tokens.append(word)
        position = match.end()
    tokens.extend(_latin_tokens(norm[position:]))
    return tokens


@lru_cache(maxsize=4_096)
def word_bounds(text: str) -> frozenset[int]:
    """The offsets where jieba's words of `text` start and end: a Chinese phrase found inside
    another word ("明天" in "说明天气") does not stand at two of them.

    >>> sorted(word_bounds("然后天气变冷了"))
    [0, 2, 4, 6, 7]
    """
    bounds, at = {0}, 0
    for word in _jieba().lcut(text):
        at += len(word)
        bounds.add(at)
    return frozenset(bounds)


def _latin_tokens(text: str) -> list[str]:
    words = (w.replace("'", "") for w in _WORD.findall(text))
    return [_stem(w) for w in words if w and w not in EN_STOPWORDS]

# The longest entity name or alias kept: graph index keys have a size limit (Neo4j's range
# index refuses a value of ~8 kB, failing the whole write), and no name a person reads is longer.
MAX_NAME_CHARS = 200


@lru_cache(maxsize=65_536)
def canonical_name(name: str) -> str:
    """The key entities are matched by: case, width, punctuation and honorifics removed.

    >>> canonical_name("  Dr. Alice  O'Neil ")
    'alice oneil'
    >>> canonical_name("王先生")
    '王'
    """
    text = normalize(name).strip()
    text = _HONORIFICS.sub("", text)
    text = re.sub(r"^the\s+", "", text)
    text = re.sub(r"['’`\"“”()\[\]{}]", "", text)
    text = re.sub(r"[\s,;:!?。，；：！？]+", " ", text).strip(" .-")
    if has_cjk(text) and len(text) > 2:
        text = _ZH_HONORIFIC_SUFFIX.sub("", text)
    return text


def token_id(token: str) -> int:
    """A stable sparse-vector index for a token (31-bit CRC32)."""
    return zlib.crc32(token.encode()) & 0x7FFFFFFF


def bm25_document(
    terms: Mapping[str, float], k1: float, b: float, avg_len: float
) -> tuple[list[int], list[float]]:
    """BM25 term weights of a document given (possibly fractional) term counts; the IDF
    factor is applied by the vector store.

    weight(t) = tf(t) x (k1 + 1) / (tf(t) + k1 x (1 - b + b x len / avg_len)),
    len = the sum of the counts.
    """
    length = sum(terms.values())
    norm = k1 * (1 - b + b * length / avg_len)
    merged: dict[int, float] = {}
    for token, tf in terms.items():
        index = token_id(token)
        merged[index] = merged.get(index, 0.0) + tf * (k1 + 1) / (tf + norm)
    indices = sorted(merged)
    return indices, [merged[i] for i in indices]


def bm25_query(tokens: list[str]) -> tuple[list[int], list[float]]:
    """Query side of BM25: each distinct term once (IDF comes from the store)."""
    indices = sorted({token_id(t) for t in tokens})
    return indices, [1.0] * len(indices)


_TOKENISH = re.compile(r"[\u3400-\u9fff]|[^\W_\u3400-\u9fff]+")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot)\b|n't\b|不|没|别|未",
    re.IGNORECASE,
)


def count_tokens(text: str) -> int:
    """Words plus CJK characters: a model-free token count for chunking and limits.

    >>> count_tokens("Ship Atlas v2 今天上线")
    7
    """
    return len(_TOKENISH.findall(text))


def has_negation(text: str) -> bool:
    """Whether a text negates something ("not", "never", "n't", 不, 没, 别 ...).

    >>> has_negation("We won't use Redis"), has_negation("不用Redis"), has_negation("Use Redis")
    (True, True, False)
    """
    return _NEGATION.search(text) is not None


def split_sentences(text: str) -> list[str]:
    """Sentences by end punctuation (English and Chinese) and line breaks."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part and part.strip()]

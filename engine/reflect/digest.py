"""A session's digest, pure: its time, its people, its topics, its decisions and the few
sentences that say most of what the session said, within a word budget.

The sentences are ranked over their vectors: a sentence near the centroid of the session's
sentences says what much of the session says; each next pick is the one that adds most
(maximal marginal relevance), so two sentences of one thread do not crowd out another.
Questions and short replies rarely tell what a session was about and are weighed down.
The digest is in the session's own language (English or Chinese).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import numpy as np

from engine.reflect.word_lists import WordLists
from engine.text import EN_STOPWORDS, ZH_STOPWORDS, has_cjk, split_sentences

_WORDS = WordLists("digest")

__all__ = [
    "DigestDraft",
    "SessionSentence",
    "central_sentences",
    "compose_digest",
    "digest_head",
    "written_summary_fits",
    "digest_words",
    "session_sentences",
    "session_topics",
    "worth_a_vector",
]

_WORD = re.compile(r"[A-Za-z0-9][\w'’./+-]*|[\u3400-\u9fff]{1,2}")
_LATIN_WORD = re.compile(r"[a-z][a-z'’-]{2,}")
# Under this many words a sentence is a reply ("Thanks!", "Sounds great."), not content.
_MIN_WORDS = 4
_QUESTION = re.compile(r"[?？]\s*$|吗[。]?$|呢[。]?$")
_OWN = re.compile(r"\b(?:I|I'm|I've|I'd|my|we|our)\b|我")
# A question asks rather than tells; a speaker's statement about themselves tells what they
# did or will do, which a written account of the session keeps (bench.digest measures both).
_QUESTION_WEIGHT = 0.6
_OWN_NEWS_WEIGHT = 1.3
_SMALL_TALK = _WORDS("small_talk")
_FILLER = frozenset(EN_STOPWORDS) | _SMALL_TALK | _WORDS("filler")


class SessionSentence(NamedTuple):
    """One sentence of a session's episodes, in the session's order, with its vector."""

    episode_id: str
    speaker: str | None
    text: str
    vector: Sequence[float]


class DigestDraft(NamedTuple):
    """What `compose_digest` writes: the text and the central sentences it shows."""

    text: str
    sentences: list[SessionSentence]  # in session order


def digest_words(text: str) -> int:
    """Words of a text, a CJK word counted as two characters.

    >>> digest_words("Sam moved to Berlin in May."), digest_words("我们聊了搬家的事")
    (6, 4)
    """
    return len(_WORD.findall(text))


def session_sentences(
    episodes: Sequence[tuple[str, str | None, str]],
) -> list[tuple[str, str | None, str]]:
    """The sentences of a session's episodes (id, speaker, content), in order, without a
    speaker's name the content starts with ("Caroline: I went ..." is told by Caroline).

    >>> session_sentences([("e1", "Caroline", "Caroline: Hi! I went to a support group.")])
    [('e1', 'Caroline', 'Hi!'), ('e1', 'Caroline', 'I went to a support group.')]
    """
    found: list[tuple[str, str | None, str]] = []
    for episode_id, speaker, content in episodes:
        text = content
        if speaker and text.startswith(f"{speaker}:"):
            text = text[len(speaker) + 1 :]
        found.extend((episode_id, speaker, s) for s in split_sentences(text))
    return found


def worth_a_vector(text: str) -> bool:
    """Whether a sentence can be picked or count toward its session's centroid (its weight
    is not 0): only those are embedded.

    >>> worth_a_vector("Thanks a lot!"), worth_a_vector("I ran a charity race last Saturday.")
    (False, True)
    """
    return _weight(text) > 0


def _weight(text: str) -> float:
    """How much a sentence can tell about its session, before what it says: a question or
    a short reply little, a sentence of content words fully, a speaker's statement about
    themselves more (what they did or will do is the session's news).

    >>> [round(_weight(t), 2) for t in ("Thanks a lot!", "How was the hike?", "The hike was long and steep.",
    ...                                 "I ran a charity race last Saturday.", "我上周跑了一个慈善马拉松。")]
    [0.0, 0.2, 1.0, 1.3, 1.3]
    """
    words = digest_words(text)
    if words < _MIN_WORDS:
        return 0.0
    asks = _QUESTION.search(text) is not None
    weight = _QUESTION_WEIGHT if asks else _OWN_NEWS_WEIGHT if _OWN.search(text) else 1.0
    if has_cjk(text):
        return weight
    content = [w for w in _LATIN_WORD.findall(text.lower()) if w not in _FILLER]
    return weight * min(1.0, len(content) / 3)


def central_sentences(
    vectors: Sequence[Sequence[float]], weights: Sequence[float], count: int, diversity: float
) -> list[int]:
    """The positions of the `count` sentences that best stand for all of them: each pick the
    most central (cosine to the centroid, times its weight) less `diversity` times its
    nearest cosine to those picked already. Returned in pick order.

    >>> central_sentences([[1, 0], [0.9, 0.1], [0, 1], [0.95, 0.05]], [1, 1, 1, 1], 3, 0.0)
    [1, 3, 0]
    >>> central_sentences([[1, 0], [0.9, 0.1], [0, 1], [0.95, 0.05]], [1, 1, 1, 1], 2, 1.0)
    [1, 2]
    """
    matrix = np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1)
    norms = np.linalg.norm(matrix, axis=1)
    usable = (np.asarray(weights, dtype=np.float64) > 0) & (norms > 0)
    if not usable.any():
        return []
    units = matrix / np.where(norms > 0, norms, 1.0)[:, None]
    centroid = units[usable].sum(axis=0)
    centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
    central = units @ centroid * np.asarray(weights, dtype=np.float64)
    similar = units @ units.T
    nearest = np.zeros(len(vectors))
    open_ = usable.copy()
    picked: list[int] = []
    while open_.any() and len(picked) < count:
        gain = np.where(open_, central - diversity * nearest, -np.inf)
        best = int(np.argmax(gain))  # the first of equal gains: the earlier sentence
        picked.append(best)
        open_[best] = False
        nearest = np.maximum(nearest, similar[best])
    return picked


def session_topics(
    mentions: Mapping[str, int],
    nouns: Sequence[Sequence[str]],
    *,
    exclude: Sequence[str],
    limit: int = 5,
) -> list[str]:
    """What a session was about: the entities its episodes mention, by how many episodes
    mention each, then the nouns of its episodes (`nouns`, one list per episode) said at
    least twice, the most said first.

    >>> session_topics({"Atlas": 3, "Sam": 1}, [["launch", "atlas"], ["launch", "date"], ["launch", "party"]],
    ...                exclude=["Sam"])
    ['Atlas', 'launch']
    """
    people = [name.casefold() for name in exclude]
    # A participant's short name ("Mel" of Melanie) and a word read as a name ("Good") are
    # no topic; an entity mentioned once ranks after the words said twice.
    named = [
        (name, count) for name, count in sorted(mentions.items(), key=lambda item: (-item[1], item[0]))
        if not any(p.startswith(name.casefold()) for p in people) and name.casefold() not in _FILLER
    ]  # fmt: skip
    taken = {word.casefold() for name, _ in named for word in name.split()} | set(people)
    counts: Counter[str] = Counter()
    for words in nouns:
        counts.update(word for word in words if _topic_word(word))
    words = sorted((word for word, count in counts.items() if count >= 2 and word not in taken),
                   key=lambda word: (-counts[word], word))  # fmt: skip
    ranked = [name for name, count in named if count >= 2] + words + [name for name, count in named if count < 2]
    chosen: list[str] = []
    for topic in ranked:  # "郫县" beside "郫县豆瓣酱", "Atlas" beside "Atlas backend": one of them
        key = topic.casefold()
        if not any(key in other.casefold() or other.casefold() in key for other in chosen):
            chosen.append(topic)
    return chosen[:limit]


def _topic_word(word: str) -> bool:
    """A noun that can name a topic: Chinese of two characters or more, a Latin word of four
    letters or more that is not a filler ("thing", "lot")."""
    if has_cjk(word):
        return len(word) >= 2 and word not in ZH_STOPWORDS
    return len(word) > 3 and word not in _FILLER


def compose_digest(
    sentences: Sequence[SessionSentence],
    *,
    span: tuple[float, float],
    participants: Sequence[str],
    topics: Sequence[str],
    decisions: Sequence[str],
    max_words: int,
    diversity: float,
    lead: float,
) -> DigestDraft:
    """The digest of one session: "<when>, <who>: <topics>. Decided: <decisions>." then the
    central sentences in session order, each after its speaker, while they fit `max_words`.

    >>> s = [SessionSentence("e1", "Sam", "I moved to Berlin for a new job at Zalando.", [1.0, 0.0]),
    ...      SessionSentence("e2", "Ana", "Thanks!", [0.0, 1.0])]
    >>> compose_digest(s, span=(1683504000.0, 1683507600.0), participants=["Sam", "Ana"],
    ...                topics=["Berlin", "Zalando"], decisions=[], max_words=80, diversity=0.5,
    ...                lead=0.5).text
    '8 May 2023, Sam and Ana: Berlin, Zalando. Sam: I moved to Berlin for a new job at Zalando.'
    """
    chinese = sum(has_cjk(s.text) for s in sentences) * 2 > len(sentences)
    head = digest_head(span, participants, topics, decisions, chinese)
    budget = max_words - digest_words(head)
    # What is new is told first: a session opens with its news, and ends in goodbyes.
    weights = [_weight(s.text) * (1 + lead * (1 - i / len(sentences))) for i, s in enumerate(sentences)]
    order = central_sentences([s.vector for s in sentences], weights, count=len(sentences), diversity=diversity)
    chosen: list[int] = []
    told = {d.strip().casefold() for d in decisions}
    for position in order:
        if sentences[position].text.strip().casefold() in told:
            continue  # the head says it already
        size = digest_words(_line(sentences[position], chinese))
        if size <= budget:
            chosen.append(position)
            budget -= size
        if budget < _MIN_WORDS:
            break
    shown = [sentences[i] for i in sorted(chosen)]
    body = ("" if chinese else " ").join(_line(s, chinese) for s in shown)
    text = head + ("" if chinese or not body else " ") + body
    return DigestDraft(text=text, sentences=shown)


def _line(sentence: SessionSentence, chinese: bool) -> str:
    if not sentence.speaker:
        return sentence.text
    return f"{sentence.speaker}：{sentence.text}" if chinese else f"{sentence.speaker}: {sentence.text}"


def digest_head(
    span: tuple[float, float], participants: Sequence[str], topics: Sequence[str],
    decisions: Sequence[str], chinese: bool,
) -> str:  # fmt: skip
    """A digest's first sentence: its day, its people (where turns name them), its topics,
    then its decisions.

    >>> digest_head((1683504000.0, 0.0), [], ["Redis"], ["We use Redis."], chinese=False)
    '8 May 2023: Redis. Decided: We use Redis.'
    >>> digest_head((1683504000.0, 0.0), ["用户", "助手"], ["搬家"], [], chinese=True)
    '2023年5月8日，用户和助手聊了搬家。'
    """
    start = datetime.fromtimestamp(span[0], UTC)
    if chinese:
        when = f"{start.year}年{start.month}月{start.day}日"
        who = f"，{'和'.join(participants)}" if participants else ""
        head = f"{when}{who}" + (f"聊了{'、'.join(topics)}" if topics else "") + "。"
        return head + (f"决定：{'；'.join(decisions)}。" if decisions else "")
    when = f"{start.day} {start:%B} {start.year}"
    who = f", {_listed(participants)}" if participants else ""
    head = f"{when}{who}" + (f": {', '.join(topics)}." if topics else ".")
    if decisions:
        head += " Decided: " + "; ".join(d.rstrip(".") for d in decisions) + "."
    return head


def _listed(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def written_summary_fits(summary: str, session_text: str, *, max_words: int, chinese: bool) -> bool:
    """Whether a summary an LLM wrote may stand for the session: within the word budget (a
    half more, for the model's own counting), in the session's language, and with no number
    the session does not hold (an invented date or amount is the commonest slip).

    >>> said = "I moved to Berlin in 2021 and pay 900 euros rent."
    >>> written_summary_fits("User moved to Berlin in 2021; rent is 900 euros.", said, max_words=80, chinese=False)
    True
    >>> written_summary_fits("User moved to Berlin in 2019.", said, max_words=80, chinese=False)
    False
    >>> written_summary_fits("用户搬到了柏林。", said, max_words=80, chinese=False)
    False
    """
    text = summary.strip()
    if not text or digest_words(text) > max_words * 1.5 or has_cjk(text) != chinese:
        return False
    held = set(_NUMBER.findall(session_text))
    return all(number in held for number in _NUMBER.findall(text))

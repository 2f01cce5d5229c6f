"""Statements in Chinese sentences, from jieba's part-of-speech tags. Pure but for jieba.

The common first-person forms: "我喜欢X", "我不喜欢X", "我在X工作", "我住在X", "我打算去X",
"我参加了X", "我有X", "我用X", "我决定X"; "你" is the other party. The object is the first run
of nouns after the verb ("一个读书会" -> 读书会). Questions and conditionals state nothing;
"可能 / 也许 / 大概" mark a statement as hedged.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from engine.reflect.vocabulary import Statement
from engine.text import split_sentences

__all__ = ["chinese_statements"]

# verbs -> predicate
_VERBS: tuple[tuple[str, str], ...] = (
    ("更喜欢|偏好|宁愿|更爱", "prefers"),
    ("喜欢|热爱|爱上了|爱|享受|迷上了", "likes"),
    ("讨厌|厌恶|受不了", "dislikes"),
    ("打算|计划|准备|想要|想去|要去|将要", "plans_to"),
    ("参加了|参加过|参加|参与了|出席了|去了|去过", "attended"),
    ("住在|生活在|定居在|搬到|搬去|搬回", "lives_in"),
    ("跳槽到|入职", "works_at"),
    ("离开了|离开|离职了", "left"),
    ("使用|采用|用", "uses"),
    ("决定|选择了|选了", "decided"),
    ("养了|有", "has"),
)
_PREDICATE_OF = {verb: predicate for verbs, predicate in _VERBS for verb in verbs.split("|")}
# One alternation, longest first: the leftmost verb wins, and at one place the longest form.
_VERB = re.compile("|".join(sorted(_PREDICATE_OF, key=len, reverse=True)))
_ACTIVITY = frozenset({"likes", "dislikes", "prefers", "plans_to"})
_WORK_AT = re.compile(r"在(?P<object>[^，。！？,.!?]{1,20}?)(?:工作|上班|任职|实习)")
# "我" but not "我们" or "我妹妹" (another person, whose statements are not the speaker's)
_SUBJECT = re.compile(r"^(?:[^，。！？,.!?]{0,6}?)(?P<who>我|你)(?![们的妹姐哥弟爸妈父母妻儿女朋同家])")
_FAVOURITE = re.compile(r"最喜欢的(?P<kind>[^，。！？,.!?是]{1,6})是(?P<object>.+)")
_NEGATION = re.compile(r"(?:不|没有|没|从不|从没|不再)$")
_ADVERBS = re.compile(r"^(?:很|非常|特别|真的|一直|都|也|还|更|最|比较|已经|刚刚|曾经|经常|总是)+")
_QUESTION = re.compile(r"[?？]|吗$|呢$|什么|哪|谁|怎么|为什么|多少")
_CONDITION = re.compile(r"如果|要是|假如|假设|万一")
_HEDGE = re.compile(r"可能|也许|大概|好像|或许|说不定")
# jieba tags that make an object: nouns, proper nouns, verbal nouns, Latin words
_NOUN_TAGS = re.compile(r"^(?:n|nr|ns|nt|nz|nrt|nrfg|vn|eng|j|l|an)$")
_SKIP_TAGS = re.compile(r"^(?:m|q|mq|r|t|u|ul|uj|uz|d|p|f|v|vg|c)$")


@lru_cache(maxsize=1)
def _posseg() -> Any:
    from engine.text import _jieba

    _jieba()
    import jieba.posseg

    return jieba.posseg


def _object(rest: str, *, activity: bool) -> str | None:
    """The first run of nouns in `rest`, skipping counts, pronouns and particles before it;
    with `activity`, a verb when no noun follows ("我喜欢跑步": 跑步)."""
    run: list[str] = []
    verb: str | None = None
    for pair in _posseg().cut(rest):
        word, tag = pair.word, pair.flag
        if _NOUN_TAGS.match(tag):
            run.append(word)
        elif run or not _SKIP_TAGS.match(tag):
            break
        elif tag == "v" and verb is None and len(word) >= 2:
            verb = word
    text = "".join(run) or (verb if activity else "") or ""
    return text if len(text) >= 2 or (text and text.isascii()) else None


def _statement(clause: str, whole: str) -> Statement | None:
    subject = _SUBJECT.search(clause)
    if subject is None:
        return None
    who = subject["who"]
    after = clause[subject.end():]
    hedged = _HEDGE.search(whole) is not None
    kind = "speaker" if who == "我" else "other"
    if favourite := _FAVOURITE.search(after):  # one value per kind (engine/reflect/reconcile.py)
        found = _object(favourite["object"], activity=True)
        return Statement(subject_kind=kind, subject=who, predicate=f"favorite_{favourite['kind']}",
                         object=found, object_key=found.lower(), hedged=hedged,
                         sentence=whole) if found else None  # fmt: skip
    if work := _WORK_AT.search(after):
        found = _object(work["object"], activity=False)
        negated = _NEGATION.search(after[: work.start()]) is not None
        return Statement(subject_kind=kind, subject=who, predicate="works_at", object=found,
                         object_key=found.lower(), negated=negated, hedged=hedged,
                         sentence=whole) if found else None  # fmt: skip
    match = _VERB.search(after)
    if match is None:
        return None
    predicate = _PREDICATE_OF[match.group(0)]
    before = _ADVERBS.sub("", after[: match.start()])
    if len(before) > 6:
        return None  # the verb is in another clause than the subject's
    found = _object(after[match.end():], activity=predicate in _ACTIVITY)
    if found is None:
        return None
    return Statement(subject_kind=kind, subject=who, predicate=predicate, object=found,
                     object_key=found.lower(), negated=_NEGATION.search(before) is not None,
                     hedged=hedged, sentence=whole)  # fmt: skip


def chinese_statements(text: str) -> list[Statement]:
    """The statements of each sentence and clause of a Chinese text.

    >>> [(s.predicate, s.object, s.negated) for s in chinese_statements("我不喜欢加班。我在阿里巴巴工作")]
    [('likes', '加班', True), ('works_at', '阿里巴巴', False)]
    >>> chinese_statements("你喜欢爵士乐吗？") + chinese_statements("如果我有钱，我会买房")
    []
    """
    found = []
    for sentence in split_sentences(text):
        if _QUESTION.search(sentence) or _CONDITION.search(sentence):
            continue
        for clause in re.split(r"[，,；;]", sentence):
            statement = _statement(clause, sentence)
            if statement is not None:
                found.append(statement)
    return found

"""Questions about an agent's work: does a question ask how something was fixed, what
was learned, and does a "last time" in it name a subject or a session?

"How did we get past the 429 last time?", "what worked before?", "上次怎么解决的？" ask for a
fix; "what have we learned about the billing API?", "有什么经验" for a lesson. A question that
pastes an error asks for its fix too (`engine.signatures.query_keys`). "Last time" with a
subject ("was it cold last time?", "上次说的预算是多少？") means that subject's latest
occurrence; alone ("what did we talk about last time?") the latest session.
"""

from __future__ import annotations

import re

from engine.nlp import naming_words
from engine.text import tokenize

__all__ = ["asks_fix", "asks_lesson", "names_subject"]

_FIX = re.compile(
    r"\bhow (?:did|do|can|could|should|would|have) (?:we|i|you)(?: \w+)? (?:fix(?:ed)?|solve[d]?|resolve[d]?|repair(?:ed)?"
    r"|get (?:past|around|rid of|over)|got (?:past|around|rid of|over)|work(?:ed)? ?around|handle[d]?|deal(?:t)? with"
    r"|sort(?:ed)? out|unblock(?:ed)?|recover(?:ed)?)\b"
    r"|\bhow (?:was|were|is|did) (?:it|this|that|they|the \w+)(?: \w+)? (?:fixed|solved|resolved|handled|get fixed)\b"
    r"|\bwhat (?:fixed|solved|resolved|worked|helped|did the trick)\b|\bwhat did (?:we|i|you) do (?:about|for|with|when|to fix)\b"
    r"|\b(?:the |a |any )?(?:fix|solution|workaround|remedy|resolution) (?:for|to|of)\b|\bhow to (?:fix|solve|resolve|get past|get around)\b"
    r"|\b(?:fixed|solved|resolved) (?:it|this|that) (?:last time|before)\b"
    r"|怎么解决|如何解决|怎样解决|怎么修|如何修|怎么处理|如何处理|怎么搞定|怎么弄好|解决办法|解决方法|解决方案|修复方法|怎么绕过"
    r"|怎么好的|怎么恢复|怎么修好|用什么办法|怎么办的",
    re.IGNORECASE,
)
_LESSON = re.compile(
    r"\bwhat (?:have|did|do) (?:we|i|you) (?:learn(?:ed|t)?|know about)\b|\b(?:what|any|the) lessons?\b"
    r"|\blessons? (?:learn(?:ed|t)|from|about|of)\b|\btakeaways?\b"
    r"|学到了?什么|有什么经验|经验教训|教训|总结的经验",
    re.IGNORECASE,
)
# The words of a question about a session as a whole, of time and of fixing: what is left
# once they are taken out is the subject a "last time" refers to.
_ABOUT_A_SESSION = frozenset(tokenize(
    "talk talked discuss discussed chat chatted speak spoke say said tell told mention mentioned cover covered "
    "conversation session call meeting discussion topic topics suggest suggested recommend recommended ask asked "
    "leave left off last time previous previously before earlier remind recap summarize summarise where "
    "fix fixed solve solved resolve resolved handle handled work worked get got past around "
    "聊 聊天 聊了 聊到 说 说了 说到 谈 谈了 谈到 讨论 讲 讲了 提到 建议 哪 到 哪了 什么 啥 那次 一次 上次 上一次 之前 前一次 "
    "时候 内容 话题 对话 谈话 我们 怎么 如何 解决 修 处理 搞定"
))


def asks_fix(question: str) -> bool:
    """Whether a question asks how a problem was fixed or got past.

    >>> asks_fix("How did we get past the npm E404 last time?"), asks_fix("上次怎么解决的？")
    (True, True)
    >>> asks_fix("What did we decide about Redis?"), asks_fix("How did the launch go?")
    (False, False)
    """
    return _FIX.search(question) is not None


def asks_lesson(question: str) -> bool:
    """Whether a question asks what was learned (a lesson).

    >>> asks_lesson("What have we learned about the billing API timeouts?"), asks_lesson("关于部署有什么经验？")
    (True, True)
    >>> asks_lesson("What did Maya learn in her pottery class?"), asks_lesson("When did Jo take diving lessons?")
    (False, False)
    """
    return _LESSON.search(question) is not None


def names_subject(question: str) -> bool:
    """Whether a question names something beside a session, time and talk or fixing (a noun,
    an adjective or a number that is not about the conversation itself): then its "last
    time" is that thing's latest occurrence. Read by the tagger (`engine.nlp.naming_words`),
    so that the verbs and function words of a request ("remind me", 回顾一下, 哪些) are no
    subject.

    >>> names_subject("What did we talk about last time?"), names_subject("上次我们聊了什么？")
    (False, False)
    >>> names_subject("Was it cold last time?"), names_subject("上次说的预算是多少？")
    (True, True)
    >>> names_subject("Remind me what we covered last time."), names_subject("回顾一下我们上一次的对话")
    (False, False)
    """
    return any(not set(tokenize(word)) <= _ABOUT_A_SESSION for word in naming_words(question))

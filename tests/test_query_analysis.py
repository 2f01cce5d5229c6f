"""Query analysis, table-driven: many phrasings of each class in English and Chinese, and the
near misses that must not be taken for them. Pure: no store, no model."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.recall.analysis import analyse

NOW = datetime(2024, 5, 20, 12, tzinfo=UTC).timestamp()

# Questions about everything said at a time: that time's sessions, not one fact.
ABOUT_EVERYTHING = [
    "What did we talk about on May 2?",
    "What topics did we discuss on May 2?",
    "What topic did we talk about on April 27th?",
    "What did we chat about last Tuesday?",
    "Which subjects did you and I cover on May 3?",
    "Remind me what we covered on May 2.",
    "Can you recap what we discussed on 2 May?",
    "What came up in our conversation on May 2?",
    "What was discussed on May 2?",
    "What things did we go over yesterday?",
    "5月2号我们聊了什么？",
    "我们那天聊了哪些？",
    "上周三我们讨论了什么",
    "5月3日我们聊过什么话题？",
    "昨天我们都聊了啥",
    "5月2号说了哪些事？",
]
ONE_FACT = [
    "What did I do on May 2?",
    "Where did Maya go on May 2?",
    "When did we move the launch?",
    "What is the budget of Atlas?",
    "Which database did we pick for Atlas?",
    "5月2号我去了哪里？",
    "星火计划的预算是多少？",
    "李娜什么时候审核合同？",
]
GATHERS = [
    "How many times did Tom go climbing?",
    "How often do we meet with Acme?",
    "What has Maya grown in her garden?",
    "阿杰一共去爬了几次山？",
    "我们总共开了几次会？",
    "李娜看过哪些电影？",
]
COMPARES = [
    ("Which came first, Maya buying the road bike or adopting Pebble?", "buying the road bike"),
    ("Did Maya adopt Pebble before or after she bought the road bike?", "adopt Pebble"),
    ("小林先买了电动车还是先领养了团子？", "买了电动车"),
]
FIRST_SESSION = [
    "Remind me what we covered in our first conversation",
    "What did we talk about the first time we spoke?",
    "In our very first chat, which database did I mention?",
    "我们第一次聊的时候说了什么？",
    "最早那次我们聊了哪些？",
]
LAST_SESSION = [
    "What did we talk about last time we talked?",
    "What did we discuss in our last conversation?",
    "Summarize our previous session",
    "In our most recent call, what did I decide?",
    "上次我们聊了什么？",
    "上一次说到哪了？",
    "之前那次你建议了什么？",
]
NO_SESSION = [
    "What did Dana say about the first release?",
    "When is the last launch of the year?",
    "我第一次去上海是什么时候？",
]


@pytest.mark.parametrize("question", ABOUT_EVERYTHING)
def test_questions_about_everything_of_a_time(question: str) -> None:
    found = analyse(question, NOW)
    assert found.time.broad, question
    assert found.time.window is not None or "yesterday" in question or "那天" in question or "昨天" in question


@pytest.mark.parametrize("question", ONE_FACT)
def test_questions_about_one_fact_are_not_about_everything(question: str) -> None:
    assert not analyse(question, NOW).time.broad, question


@pytest.mark.parametrize("question", GATHERS)
def test_questions_that_gather(question: str) -> None:
    assert analyse(question, NOW).gathers, question


@pytest.mark.parametrize("question", ONE_FACT[:4] + ONE_FACT[5:6])
def test_questions_that_do_not_gather(question: str) -> None:
    assert not analyse(question, NOW).gathers, question


@pytest.mark.parametrize(("question", "one_side"), COMPARES)
def test_comparisons_name_both_events(question: str, one_side: str) -> None:
    found = analyse(question, NOW).sides
    assert found is not None and any(one_side in side for side in found), (question, found)


@pytest.mark.parametrize("question", FIRST_SESSION)
def test_the_first_session(question: str) -> None:
    assert analyse(question, NOW).session == "first", question


@pytest.mark.parametrize("question", LAST_SESSION)
def test_the_last_session(question: str) -> None:
    assert analyse(question, NOW).session == "last", question


@pytest.mark.parametrize("question", NO_SESSION + ONE_FACT)
def test_no_session_named(question: str) -> None:
    assert analyse(question, NOW).session is None, question


def test_words_entities_and_time_come_with_it() -> None:
    found = analyse("When did Dana move the Atlas launch?", NOW)
    assert "atlas" in found.entity_names and "dana" in found.entity_names
    assert "launch" in found.tokens and found.time.asks_when and not found.time.wants_latest
    assert analyse("上次的预算是多少", NOW).time.wants_latest

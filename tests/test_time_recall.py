"""Recall scoped to a date the question names, in English and Chinese: the cards come from
that date, and every card's trace says which window was applied."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import Memory, Settings

# Three sessions on three days, each about other things; the questions name a day, not a topic.
DAYS = {
    "2023-05-01": ["I repotted the fern and the basil on the balcony.",
                   "The Atlas team fixed the login bug.", "我们讨论了预算的问题。"],
    "2023-05-02": ["Dana booked the flights to Lisbon for June.",
                   "We argued about tabs versus spaces.", "我周二去游泳了。"],
    "2023-05-03": ["The cat knocked the vase off the shelf.",
                   "Priya moved the demo to Friday.", "我们聊了成都的火锅。"],
}  # fmt: skip
NOW = datetime(2023, 5, 4, 9, tzinfo=UTC)  # a Thursday


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("time")), importance_threshold=0.0)
    with Memory.open(settings=settings) as opened:
        opened.store_many([
            {"content": text, "session_id": day, "occurred_at": f"{day}T10:0{i}:00Z"}
            for day, texts in DAYS.items() for i, text in enumerate(texts)
        ])  # fmt: skip
        yield opened


@pytest.mark.parametrize(("question", "day"), [
    ("What did we talk about on May 2?", "2023-05-02"),
    ("What was discussed on 1 May 2023?", "2023-05-01"),
    ("What did we discuss yesterday?", "2023-05-03"),
    ("What did we talk about last Tuesday?", "2023-05-02"),
    ("在5月2号我们聊了哪些话题？", "2023-05-02"),
    ("5月1日这天我们谈了什么？", "2023-05-01"),
    ("前天我们聊了什么？", "2023-05-02"),
    ("昨天我们聊了什么？", "2023-05-03"),
])  # fmt: skip
def test_a_question_about_a_day_gets_that_days_turns(memory: Memory, question: str, day: str) -> None:
    cards = memory.recall(question, top_k=3, now=NOW)
    assert [c.session_id for c in cards] == [day] * 3, [(c.session_id, c.content) for c in cards]
    start = datetime.fromisoformat(f"{day}T00:00:00+00:00")
    for card in cards:
        assert card.trace is not None and card.trace.time_window is not None
        assert card.trace.time_window[0] == start
        assert (card.trace.time_window[1] - start).days == 1


@pytest.mark.parametrize(("question", "days"), [
    ("What did we talk about between May 2 and May 3?", {"2023-05-02", "2023-05-03"}),
    ("What did we discuss in the two days before May 3, 2023?", {"2023-05-01", "2023-05-02"}),
    ("5月2号到3号我们聊了什么？", {"2023-05-02", "2023-05-03"}),
    ("5月3号的前两天我们聊了什么？", {"2023-05-01", "2023-05-02"}),
])  # fmt: skip
def test_a_question_about_a_range_gets_its_days_turns(memory: Memory, question: str, days: set[str]) -> None:
    cards = memory.recall(question, top_k=6, now=NOW)
    assert {c.session_id for c in cards} == days, [(c.session_id, c.content) for c in cards]
    assert len(cards) == 6


def test_no_date_no_window(memory: Memory) -> None:
    cards = memory.recall("Who moved the demo?", top_k=2, now=NOW)
    assert cards[0].content.startswith("Priya")
    assert all(c.trace is not None and c.trace.time_window is None for c in cards)


# Per language: turns of other months that match the question's words better than the one of
# the month it names, and later turns of that month about other things (so the recency
# channel, which keeps to the month, offers only those).
MONTH_CASES = {
    "en": ([f"Joanna: my screenplay draft is going well, chapter {n} of the screenplay is done."
            for n in range(12)],
           "Joanna: I finally printed my first full script last Friday, such a relief!",
           ["Nate: my turtles love the new tank.", "Nate: the tournament is next week.",
            "Joanna: the weather has been cold.", "Nate: I made vanilla ice cream."],
           "Did Joanna finish her screenplay in January 2022?"),
    "zh": ([f"小乔：我的剧本草稿进展顺利，剧本第{n}章写完了。" for n in range(12)],
           "小乔：上周五我终于把第一部完整的本子打印出来了，总算松了口气！",
           ["阿杰：我的乌龟很喜欢新鱼缸。", "阿杰：比赛在下周。", "小乔：最近天气很冷。",
            "阿杰：我做了香草冰淇淋。"],
           "2022年1月小乔写完剧本了吗？"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(MONTH_CASES))
@pytest.mark.parametrize("in_window", [0, 5])
def test_a_named_month_searches_that_month_alone_too(tmp_path: Path, language: str, in_window: int) -> None:
    elsewhere, that_month, later, question = MONTH_CASES[language]
    settings = Settings(data_dir=tmp_path, importance_threshold=0.0, channel_candidates=5,
                        recency_candidates=2, time_window_candidates=in_window)  # fmt: skip
    with Memory.open(settings=settings) as memory:
        memory.store_many(
            [{"content": text, "occurred_at": f"2022-{3 + n % 9:02d}-{1 + n:02d}T10:00:00Z"}
             for n, text in enumerate(elsewhere)]
            + [{"content": that_month, "occurred_at": "2022-01-10T10:00:00Z"}]
            + [{"content": text, "occurred_at": f"2022-01-{20 + n}T10:00:00Z"} for n, text in enumerate(later)]
        )  # fmt: skip
        cards = memory.recall(question, top_k=10, now=datetime(2023, 1, 1, tzinfo=UTC))
    found = that_month in [c.content for c in cards]
    # Without the month's own searches, the turn that answers is no candidate at all: not
    # even tenth of thirteen.
    assert found == (in_window > 0), [c.content for c in cards]


# Per language: a turn telling, two days later, what happened on the weekend the question
# names, among turns of the same days that share the question's words.
EVENT_CASES = {
    "en": ([("2023-10-08", "Dave: Last Friday I went to the car show and tinkered with engines."),
            ("2023-10-08", "Dave: What are you doing this weekend? I'm doing nothing much."),
            ("2023-10-12", "Dave: I was doing yard work all weekend, so boring."),
            ("2023-09-10", "Dave: On the first weekend of a month I'm always doing chores.")],
           "What was Dave doing in the first weekend of October 2023?"),
    "zh": ([("2023-10-08", "大卫：前天我去看了车展，还摆弄了发动机。"),
            ("2023-10-08", "大卫：这个周末你在做什么？我周末什么也没做。"),
            ("2023-10-12", "大卫：周末我一直在院子里做杂活，太无聊了。"),
            ("2023-09-10", "大卫：每个月的第一个周末我都在做家务。")],
           "大卫10月的第一个周末在做什么？"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(EVENT_CASES))
@pytest.mark.parametrize("event_boost", [1.0, Settings().time_event_boost])
def test_a_turn_telling_of_the_named_days_comes_first(tmp_path: Path, language: str, event_boost: float) -> None:
    turns, question = EVENT_CASES[language]
    settings = Settings(data_dir=tmp_path, importance_threshold=0.0, time_event_boost=event_boost)
    with Memory.open(settings=settings) as memory:
        memory.store_many([
            {"content": text, "session_id": day, "occurred_at": f"{day}T15:0{i}:00Z"}
            for i, (day, text) in enumerate(turns)
        ])  # fmt: skip
        cards = memory.recall(question, top_k=4, now=datetime(2023, 11, 1, tzinfo=UTC))
    window = cards[0].trace.time_window if cards[0].trace is not None else None
    # The first weekend of October 2023: Friday the 6th to Sunday the 8th.
    assert window is not None and (window[0].day, window[1].day) == (6, 9)
    # Only the turn's own time tells it apart: it shares no word with the question.
    assert (cards[0].content == turns[0][1]) == (event_boost > 1), [c.content for c in cards]

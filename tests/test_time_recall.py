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


def test_no_date_no_window(memory: Memory) -> None:
    cards = memory.recall("Who moved the demo?", top_k=2, now=NOW)
    assert cards[0].content.startswith("Priya")
    assert all(c.trace is not None and c.trace.time_window is None for c in cards)

"""A question that gathers over sessions ("how many times", "一共", "哪些") gets cards from
each session that holds evidence before a second card of any one session; a question asking
for one thing keeps its order. English and Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Memory, Settings

# The first session talks about climbing at length; the later ones mention it once each.
SESSIONS = {
    "s1": ["Tom went climbing at the Granite Gym today.", "Climbing the blue route at the Granite Gym was hard.",
           "Tom's climbing shoes from the Granite Gym hurt.", "阿杰今天去爬山了，爬的是紫金山。",
           "阿杰说爬山的时候紫金山下雨了。", "阿杰爬山穿的鞋不舒服。"],
    "s2": ["Maya planted basil.", "Tom went climbing again with Leo.", "阿杰又和小王去爬山了。"],
    "s3": ["Maya's cat hid under the sofa.", "Tom finally climbed the overhang.", "阿杰第三次去爬山，爬上了最高峰。"],
}  # fmt: skip


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    # The first session outscores the others by far here: a stronger discount than the default
    # (0.6, what LoCoMo's single-answer questions bear) shows the mechanism in both languages.
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("spread")), importance_threshold=0.0,
                        session_repeat_factor=0.4)  # fmt: skip
    with Memory.open(settings=settings) as opened:
        opened.store_many([
            {"content": text, "session_id": session, "occurred_at": f"2023-05-0{n}T10:{i:02d}:00Z"}
            for n, (session, texts) in enumerate(SESSIONS.items(), start=1)
            for i, text in enumerate(texts)
        ])  # fmt: skip
        yield opened


@pytest.mark.parametrize("question", [
    "How many times did Tom go climbing?",
    "阿杰一共去爬了几次山？",
])  # fmt: skip
def test_a_gathering_question_reaches_every_session(memory: Memory, question: str) -> None:
    cards = memory.recall(question, top_k=3, now="2023-05-10T00:00:00Z")
    assert {c.session_id for c in cards} == {"s1", "s2", "s3"}, [c.content for c in cards]
    repeats = [c for c in memory.recall(question, top_k=8, now="2023-05-10T00:00:00Z")
               if c.trace is not None and c.trace.session_factor < 1]  # fmt: skip
    assert repeats and all(c.session_id is not None for c in repeats)


@pytest.mark.parametrize("question", [
    "Where did Tom go climbing first?",
    "阿杰在哪座山爬山？",
])  # fmt: skip
def test_a_question_for_one_thing_is_not_spread(memory: Memory, question: str) -> None:
    cards = memory.recall(question, top_k=5, now="2023-05-10T00:00:00Z")
    assert all(c.trace is not None and c.trace.session_factor == 1.0 for c in cards)
    assert cards[0].session_id == "s1"

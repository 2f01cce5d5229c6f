"""A question comparing two events in time recalls a memory of each, in English and Chinese:
each side is searched on its own (the `side` channel), where the whole question's words favour
the memories of one side."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.settings.weights import ChannelWeights

# Per language: the two events, told in sessions weeks apart, and turns that share the
# question's words with one side only.
CASES = {
    "en": (
        [("2023-04-03", "Maya: Meet Pebble, the kitten I adopted from the shelter today!"),
         ("2023-04-20", "Maya: I finally bought a road bike, a blue one."),
         ("2023-04-21", "Tom: Did you ride the road bike first thing this morning?"),
         ("2023-04-22", "Maya: The road bike came with a bell, my first bike with one."),
         ("2023-04-23", "Tom: Which road bike shop came first on your list?")],
        "Which came first, Maya buying the road bike or adopting Pebble?",
    ),
    "zh": (
        [("2023-04-03", "小林：今天我从救助站领养了一只小猫，叫团子！"),
         ("2023-04-20", "小林：我终于买了一辆电动车，蓝色的。"),
         ("2023-04-21", "阿杰：你今天一早先骑了电动车吗？"),
         ("2023-04-22", "小林：电动车带了车筐，先骑电动车去菜场真方便。"),
         ("2023-04-23", "阿杰：你先去了哪家电动车店看电动车，还是先上网看的？")],
        "小林先买了电动车还是先领养了团子？",
    ),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(CASES))
@pytest.mark.parametrize("side", [0.0, ChannelWeights().side])
def test_both_events_of_a_comparison_are_recalled(tmp_path: Path, language: str, side: float) -> None:
    turns, question = CASES[language]
    settings = Settings(data_dir=tmp_path, importance_threshold=0.0, weights=ChannelWeights(side=side))
    with Memory.open(settings=settings) as memory:
        memory.store_many([
            {"content": text, "session_id": day, "occurred_at": f"{day}T10:00:00Z"} for day, text in turns
        ])  # fmt: skip
        cards = memory.recall(question, top_k=3)
    shown = [c.content for c in cards]
    events = {turns[0][1], turns[1][1]}
    assert events <= set(shown) if side > 0 else not events <= set(shown), shown
    if side > 0:
        adopted = next(c for c in cards if c.content == turns[0][1])
        assert adopted.trace is not None and "side" in {h.channel for h in adopted.trace.channels}

"""The reply channel: the answer to a question turn that matches the query, where the answer
names its subject only by "them", in English and Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.settings.weights import ChannelWeights

# One session each: the answer follows the question that names the turtles; the other turns
# share the question's words, not its answer.
SESSIONS = {
    "en": [
        ("Nate", "I took the turtles to the vet for their check-up."),
        ("Joanna", "Awww, the turtles are so cute! How long have you had them?"),
        ("Nate", "I've had them for 3 years now and they bring me tons of joy!"),
        ("Joanna", "How long did the drive to the lake take?"),
        ("Nate", "The turtles love the lake, it has been a long week for them."),
        ("Joanna", "My dog has had a long nap today."),
    ],
    "zh": [
        ("小明", "我带乌龟去宠物医院做了检查。"),
        ("小红", "这些乌龟真可爱！你养了它们多久了？"),
        ("小明", "已经三年了，每天都很开心。"),
        ("小红", "你去湖边开车开了多久？"),
        ("小明", "乌龟喜欢湖边，它们这周过得很久很慢。"),
        ("小红", "我的狗今天睡了很久。"),
    ],
}
# A Chinese question turn that ends in its particle, with no question mark.
SESSIONS["zh-particle"] = [
    (role, "这些乌龟真可爱！你养了它们多久了呢" if position == 1 else text)
    for position, (role, text) in enumerate(SESSIONS["zh"])
]
QUESTIONS = {"en": "How long has Nate had his turtles?", "zh": "小明养乌龟多久了？", "zh-particle": "小明养乌龟多久了？"}
ANSWERS = {"en": "3 years", "zh": "三年", "zh-particle": "三年"}
DEFAULT = Settings().weights.reply


def _open(path: Path, reply: float) -> Memory:
    weights = ChannelWeights(reply=reply)
    return Memory.open(settings=Settings(data_dir=path, importance_threshold=0.0, weights=weights))


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = Path(tmp_path_factory.mktemp("replies"))
    with _open(path, DEFAULT) as memory:
        for language, turns in SESSIONS.items():
            memory.store_many([
                {"content": text, "role": role, "session_id": language, "namespace": language,
                 "occurred_at": f"2023-05-01T10:{i:02d}:00Z"}
                for i, (role, text) in enumerate(turns)
            ])  # fmt: skip
    yield path


@pytest.mark.parametrize("language", sorted(SESSIONS))
def test_the_answer_to_a_matching_question_is_recalled_with_its_reason(stored: Path, language: str) -> None:
    with _open(stored, DEFAULT) as memory:
        cards = memory.recall(QUESTIONS[language], namespace=language, top_k=3)
    answer = next((c for c in cards if ANSWERS[language] in c.content), None)
    assert answer is not None, [c.content for c in cards]
    assert answer.trace is not None and "reply" in {h.channel for h in answer.trace.channels}


@pytest.mark.parametrize("language", sorted(SESSIONS))
def test_without_the_reply_channel_the_answer_is_not_found(stored: Path, language: str) -> None:
    with _open(stored, 0.0) as memory:
        cards = memory.recall(QUESTIONS[language], namespace=language, top_k=3)
    assert all(ANSWERS[language] not in c.content for c in cards), [c.content for c in cards]
    assert all("reply" not in {h.channel for h in c.trace.channels} for c in cards if c.trace)

"""Chinese text in its own dense space: what gets a multilingual vector, what a Chinese question
searches, and how an existing memory gains the space (real models, real Qdrant Edge)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.models import MemoryCard

CHINESE = [
    "小林上周末去杭州爬山了，风景特别好。",
    "阿杰最近在学做蛋糕，已经烤了三次。",
    "公司下个月要搬到新的办公楼。",
    "我昨天买了一台新电脑，屏幕很大。",
]
ENGLISH = "Dana picked Postgres for the Atlas project."
# Paraphrases that share (almost) no characters with what they ask about.
QUESTIONS = [("谁去户外运动了？", 0), ("有人在练习烘焙吗？", 1), ("办公地点要换到哪里？", 2),
             ("最近添置了什么电子产品？", 3)]  # fmt: skip


def _open(path: Path, multilingual: str) -> Memory:
    return Memory.open(settings=Settings(data_dir=path, multilingual_embedder=multilingual))


@pytest.fixture(scope="module", params=["use", "off"])
def stored(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, list[str]]]:
    with _open(tmp_path_factory.mktemp(request.param), request.param) as memory:
        ids = [r.id for r in memory.store_many([{"content": t, "session_id": "s"} for t in [*CHINESE, ENGLISH]])]
        yield memory, ids


def _vector_rank(card: MemoryCard) -> int | None:
    assert card.trace is not None
    return next((hit.rank for hit in card.trace.channels if hit.channel == "vector"), None)


def _firsts(memory: Memory, ids: list[str]) -> int:
    """How many questions the vector channel answers with their episode first."""
    found = 0
    for question, want in QUESTIONS:
        cards = {card.id: card for card in memory.recall(question, top_k=10)}
        found += ids[want] in cards and _vector_rank(cards[ids[want]]) == 1
    return found


def test_only_chinese_text_gets_a_multilingual_vector(stored: tuple[Memory, list[str]]) -> None:
    memory, ids = stored
    probe = memory._core.embedder.multilingual
    if memory.settings.multilingual_embedder == "off":
        assert probe is None
        return
    assert probe is not None
    hits = memory._core.vectors.search_dense("default", probe.embed(["爬山"])[0], 10, space="multilingual")
    assert {h.id for h in hits} == set(ids[:4])  # the English episode is not in the space


def test_a_chinese_question_finds_its_paraphrase_by_meaning(stored: tuple[Memory, list[str]]) -> None:
    memory, ids = stored
    firsts = _firsts(memory, ids)
    if memory.settings.multilingual_embedder == "use":
        assert firsts == len(QUESTIONS)
    else:  # MiniLM reads Chinese as noise: the space is what finds them
        assert firsts < len(QUESTIONS)


def test_an_english_question_keeps_to_minilm(stored: tuple[Memory, list[str]]) -> None:
    memory, ids = stored
    [card] = memory.recall("Which database did Dana choose?", top_k=1)
    assert card.id == ids[4] and _vector_rank(card) == 1


def test_forget_and_restore_keep_the_space(tmp_path: Path) -> None:
    with _open(tmp_path / "d", "use") as memory:
        ids = [r.id for r in memory.store_many([{"content": t} for t in CHINESE])]
        memory.forget(ids[0])
        assert ids[0] not in {c.id for c in memory.recall("谁去户外运动了？", top_k=10)}
        memory.restore(ids[0])
        cards = {c.id: c for c in memory.recall("谁去户外运动了？", top_k=10)}
        assert _vector_rank(cards[ids[0]]) == 1


def test_an_existing_memory_gains_the_space_through_doctor(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with _open(tmp_path / "d", "off") as memory:
        ids = [r.id for r in memory.store_many([{"content": t} for t in CHINESE])]
    with _open(tmp_path / "d", "use") as memory:
        assert "hindsight doctor --repair" in caplog.text
        report = memory.doctor()
        assert sorted(report.missing_vectors) == sorted(ids)  # a new collection, empty
        memory.doctor(repair=True)
        assert memory.doctor().missing_vectors == []
        assert _firsts(memory, ids) == len(QUESTIONS)

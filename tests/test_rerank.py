"""The reranking stage on real stores: author and time factors, MMR, the token budget."""

from __future__ import annotations

from pathlib import Path

from engine import Memory, Settings
from engine.text import count_tokens


def _by_id(cards: list, episode_id: str):  # type: ignore[no-untyped-def]
    return next(c for c in cards if c.id == episode_id)


def test_a_named_author_lifts_their_own_memories(memory: Memory) -> None:
    mine = memory.store("I adopted a rescue dog named Biscuit", role="Caroline")
    theirs = memory.store("I adopted a rescue dog named Pepper", role="Melanie")
    cards = memory.recall("Which rescue dog did Caroline adopt?", top_k=5)
    assert cards[0].id == mine.id
    assert _by_id(cards, mine.id).trace.author_factor > 1.0
    assert _by_id(cards, theirs.id).trace.author_factor == 1.0


def test_when_questions_prefer_memories_that_carry_a_time(memory: Memory) -> None:
    timeless = memory.store("Nate keeps two turtles in a big tank")
    timed = memory.store("Nate got his two turtles three years ago")
    cards = memory.recall("When did Nate get his turtles?", top_k=5)
    assert cards[0].id == timed.id
    assert _by_id(cards, timed.id).trace.time_factor > 1.0
    assert _by_id(cards, timeless.id).trace.time_factor == 1.0
    plain = memory.recall("Nate turtles tank", top_k=5)
    assert all(c.trace.time_factor == 1.0 for c in plain)


def test_a_named_date_prefers_memories_of_that_day(memory: Memory) -> None:
    memory.store("Went to the gym and then the market", occurred_at="2023-11-20T10:00:00Z")
    that_day = memory.store("Went to the gym and then the library", occurred_at="2023-12-05T10:00:00Z")
    cards = memory.recall("What did I do on December 4, 2023?", top_k=5, now="2024-01-10T00:00:00Z")
    assert cards[0].id == that_day.id  # told the day after: within the window's slack
    assert cards[0].trace.time_factor > 1.0


def test_mmr_trades_a_near_duplicate_for_a_different_memory(tmp_path: Path) -> None:
    texts = ["The Atlas launch moved to May because of the audit",
             "Atlas launch moved to May due to the audit",
             "The Atlas budget is 50k for the quarter"]  # fmt: skip
    results = {}
    for lam in (1.0, 0.3):
        settings = Settings(data_dir=tmp_path / str(lam), mmr_lambda=lam, dedup=False)
        with Memory.open(settings=settings) as memory:
            ids = [memory.store(t).id for t in texts]
            cards = memory.recall("when is the Atlas launch", top_k=2)
            results[lam] = {ids.index(c.id) for c in cards}
    assert results[1.0] == {0, 1}
    assert results[0.3] == {0, 2} or results[0.3] == {1, 2}


def test_the_token_budget_bounds_the_cards(memory: Memory) -> None:
    memory.store("Atlas " + "detail " * 60)  # 61 tokens
    short = memory.store("Atlas ships in May")
    cards = memory.recall("Atlas", top_k=5, max_tokens=20)
    assert [c.id for c in cards] == [short.id]
    assert sum(count_tokens(c.content) for c in cards) <= 20
    assert len(memory.recall("Atlas", top_k=5)) == 2

"""The reranking stage on real stores: author and time factors, MMR, the token budget."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine import Memory, Settings
from engine.models import Episode, GraphPath, MemoryCard, PathNode, Trace
from engine.recall.pipeline import _path_episodes, _read_live
from engine.stores.base import GraphBatch
from engine.stores.ladybug_graph import LadybugGraphStore
from engine.text import count_tokens


def _trace(cards: list[MemoryCard], episode_id: str) -> Trace:
    trace = next(c for c in cards if c.id == episode_id).trace
    assert trace is not None
    return trace


def test_a_named_author_lifts_their_own_memories(memory: Memory) -> None:
    mine = memory.store("I adopted a rescue dog named Biscuit", role="Caroline")
    theirs = memory.store("I adopted a rescue dog named Pepper", role="Melanie")
    cards = memory.recall("Which rescue dog did Caroline adopt?", top_k=5)
    assert cards[0].id == mine.id
    assert _trace(cards, mine.id).author_factor > 1.0
    assert _trace(cards, theirs.id).author_factor == 1.0


def test_when_questions_prefer_memories_that_carry_a_time(memory: Memory) -> None:
    timeless = memory.store("Nate keeps two turtles in a big tank")
    timed = memory.store("Nate got his two turtles three years ago")
    cards = memory.recall("When did Nate get his turtles?", top_k=5)
    assert cards[0].id == timed.id
    assert _trace(cards, timed.id).time_factor > 1.0
    assert _trace(cards, timeless.id).time_factor == 1.0
    plain = memory.recall("Nate turtles tank", top_k=5)
    assert all(_trace(plain, c.id).time_factor == 1.0 for c in plain)


def test_a_named_date_prefers_memories_of_that_day(memory: Memory) -> None:
    memory.store("Went to the gym and then the market", occurred_at="2023-11-20T10:00:00Z")
    that_day = memory.store("Went to the gym and then the library", occurred_at="2023-12-05T10:00:00Z")
    cards = memory.recall("What did I do on December 4, 2023?", top_k=5, now="2024-01-10T00:00:00Z")
    assert cards[0].id == that_day.id  # told the day after: within the window's slack
    assert _trace(cards, cards[0].id).time_factor > 1.0


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


def test_dead_vector_hits_leave_the_ranking_and_lower_ones_take_their_place(memory: Memory) -> None:
    """Vector hits are checked against the graph when candidates are read: an expired
    episode's point still matches, and the candidates it kept out of reach are read then."""
    expiring = [
        memory.store(f"Orion launch checklist item {i}: orion launch orion checklist",
                     occurred_at="2024-01-01T00:00:00Z", expires_at="2024-02-01T00:00:00Z").id
        for i in range(4)
    ]  # fmt: skip
    lasting = memory.store("Orion launch is on day 12", occurred_at="2023-06-01T00:00:00Z").id
    before = memory.recall("orion launch checklist", top_k=2, now="2024-01-15T00:00:00Z")
    assert {c.id for c in before} <= set(expiring)
    after = memory.recall("orion launch checklist", top_k=2, now="2024-03-01T00:00:00Z")
    assert [c.id for c in after] == [lasting]  # every expiring one is gone, the lasting one read


def test_reading_candidates_stays_exact_when_the_best_are_dead(tmp_path: Path) -> None:
    """With no factor spread only the best fused candidate can make top 1: when it is dead,
    the next one is read in its place, and the rest only while they can reach it."""
    graph = LadybugGraphStore(tmp_path / "graph")
    at = 1_700_000_000.0
    graph.write(GraphBatch(episodes=[
        Episode.model_validate({"id": i, "namespace": "ns", "content": i, "occurred_at": at,
                                "created_at": at})
        for i in ("a", "b", "c")
    ]))  # fmt: skip
    assert graph.soft_delete("ns", "a", at + 1)
    reads: list[list[str]] = []

    def read(ids: list[str]) -> list[Episode]:
        reads.append(list(ids))
        return graph.live_episodes("ns", ids, at + 2)

    fused = {"a": 1.0, "b": 0.9, "c": 0.1, "ghost": 0.95}  # ghost: a point with no episode
    assert list(_read_live(read, fused, top_k=1, ceiling=1.0, final=lambda e: fused[e.id])) == ["b"]
    assert reads == [["a"], ["ghost"], ["b"]]  # c (0.1) cannot reach b's 0.9: not read
    reads.clear()
    assert list(_read_live(read, fused, top_k=1, ceiling=9.0, final=lambda e: fused[e.id])) == ["b", "c"]
    assert reads == [["a"], ["ghost"], ["b"], ["c"]]  # 0.1 x 9 reaches 0.9: read
    everything = _read_live(read, fused, top_k=None, ceiling=1.0, final=lambda e: 0.0)
    assert sorted(everything) == ["b", "c"]
    graph.close()


def test_the_episodes_on_a_shown_path_are_read_when_recall_did_not_read_them(tmp_path: Path) -> None:
    """A seed of graph expansion may not be worth reading as a candidate, yet a card's path
    names it: it is read then (a dead one stays unnamed), and nothing is read when recall
    already holds every episode on the paths."""
    graph = LadybugGraphStore(tmp_path / "graph")
    at = 1_700_000_000.0
    made = {
        i: Episode.model_validate({"id": i, "namespace": "ns", "content": f"about {i}",
                                   "summary": f"summary of {i}", "occurred_at": at, "created_at": at})
        for i in ("seed", "card", "gone")
    }  # fmt: skip
    graph.write(GraphBatch(episodes=list(made.values())))
    assert graph.soft_delete("ns", "gone", at + 1)
    reads: list[list[str]] = []

    def counted(ids: Sequence[str]) -> list[Episode]:
        reads.append(list(ids))
        return graph.live_episodes("ns", ids, at + 2)

    path = GraphPath(
        nodes=[PathNode(id=i, label="Episode") for i in ("gone", "seed")]
        + [PathNode(id="e1", label="Entity", name="Atlas"), PathNode(id="card", label="Episode")],
        relationships=["MENTIONS", "MENTIONS", "MENTIONS"],
    )
    held = {"card": made["card"]}
    named = _path_episodes(counted, [path, None], held)
    assert sorted(named) == ["card", "seed"] and named["seed"].summary == "summary of seed"
    assert reads == [["gone", "seed"]] and held == {"card": made["card"]}  # the caller's kept
    reads.clear()
    assert _path_episodes(counted, [path], {**held, "seed": made["seed"], "gone": made["gone"]})
    assert reads == []
    graph.close()

"""Recall as a declared plan: every channel and adjuster can be left out (`recall_off`), and
what is left out leaves no trace; the default plan runs them all. Real stores, real models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine import Memory, Settings
from engine.models import MemoryCard
from engine.recall.plan import ADJUSTERS, CHANNELS

NOW = "2023-05-30T12:00:00Z"
TURNS = [
    ("2023-04-03", "Maya: Meet Pebble, the kitten I adopted from the shelter today!"),
    ("2023-04-20", "Maya: I finally bought a road bike, a blue one."),
    ("2023-04-21", "Tom: How long have you wanted one?"),
    ("2023-04-21", "Maya: For about three years, since I moved to Lyon."),
    ("2023-05-02", "Maya: We decided to use Postgres for the Atlas backend."),
    ("2023-05-20", "Maya: Atlas no longer runs on Postgres: the hosting plan only has MySQL."),
    ("2023-05-21", "Tom: Atlas ships with MySQL then. Pebble says hi."),
]
# A deploy that failed on a locked database and the step that got past it (the fix channel).
TASK = [
    ("2023-05-22T09:00:00Z", "failure", "alembic upgrade head\nsqlite3.OperationalError: database is locked"),
    ("2023-05-22T09:01:00Z", "success", "rm -f atlas.db-journal"),
    ("2023-05-22T09:02:00Z", "success", "alembic upgrade head\nRunning upgrade 41c2 -> 5a9e"),
]
# Between them, these ask every channel something it answers.
QUESTIONS = [
    "sqlite3.OperationalError: database is locked. How did we fix it last time?",
    "Which came first, Maya buying the road bike or adopting Pebble?",
    "How long has Maya wanted a road bike?",
    "Which database does Atlas use?",
    "What did Maya say on April 20?",
    "What happened most recently?",
]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("plan")
    with Memory.open(settings=Settings(data_dir=data, importance_threshold=0.0)) as memory:
        memory.store_many([
            {"content": text, "occurred_at": f"{day}T10:{n:02d}:00Z", "session_id": day,
             "role": text.split(":")[0], "namespace": "p"}
            for n, (day, text) in enumerate(TURNS)
        ])  # fmt: skip
        memory.store_task("Migrate the Atlas schema", [
            {"content": text, "occurred_at": at, "outcome": outcome, "role": text.split()[0]} for at, outcome, text in TASK
        ], outcome="success", namespace="p", session_id="deploy")  # fmt: skip
        memory.reflect(namespace="p")
    yield data


def _cards(data: Path, off: list[str]) -> list[MemoryCard]:
    settings = Settings(data_dir=data, importance_threshold=0.0, recall_off=tuple(off))
    with Memory.open(settings=settings) as memory:
        return [card for q in QUESTIONS for card in memory.recall(q, namespace="p", top_k=7, now=NOW)]


def _channels(cards: list[MemoryCard]) -> set[str]:
    """The channels that found the episodes (a fact card's trace says `fact`)."""
    return {hit.channel for card in cards if card.trace and card.layer != "semantic"
            for hit in card.trace.channels}  # fmt: skip


def test_the_default_plan_runs_every_channel(stored: Path) -> None:
    assert _channels(_cards(stored, [])) == set(CHANNELS)


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_channel_left_out_leaves_no_trace(stored: Path, channel: str) -> None:
    cards = _cards(stored, [channel])
    assert channel not in _channels(cards)
    assert _channels(cards) == set(CHANNELS) - {channel}  # and only it is gone
    if channel == "graph":  # no walk but a fix's (signature, failure, RESOLVED_BY)
        assert not any(c.trace and c.trace.path and len(c.trace.path.nodes) > 2
                       and "RESOLVED_BY" not in c.trace.path.relationships for c in cards)  # fmt: skip


def test_adjusters_left_out(stored: Path) -> None:
    everything = _cards(stored, [])
    assert any(c.layer == "semantic" for c in everything)  # facts about Atlas, Maya
    assert any(c.trace and c.trace.supersedes for c in everything)  # MySQL updates Postgres
    assert any(c.trace and c.trace.time_window for c in everything)
    plain = _cards(stored, ["facts", "updates"])
    assert not any(c.layer == "semantic" for c in plain)
    assert not any(c.trace and (c.trace.supersedes or c.trace.superseded_by) for c in plain)


def test_an_unknown_name_is_refused_naming_the_setting_and_the_choices() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(recall_off=("graph", "telepathy"))
    message = str(refused.value)
    assert "recall_off" in message and "telepathy" in message
    assert all(name in message for name in (*CHANNELS, *ADJUSTERS))

"""Helpers of the fact lifecycle tests: a person's turns stored, and the facts kept of them."""

from __future__ import annotations

from engine import Memory
from engine.views import Fact

# Three of Sam's turns, a month apart: a job, the same job said again with a detail only that
# turn holds, and a taste.
SAM = [
    ("first", "2024-01-01", "I work at Google as a nurse."),
    ("again", "2024-02-01", "I still work at Google, in the Zanzibar office."),
    ("hobby", "2024-03-01", "I love pottery."),
]


def told(memory: Memory, turns: list[tuple[str, str, str]], who: str = "Sam") -> dict[str, str]:
    """Store each (key, day, text) as the person's turn; the episode id of each key."""
    return {key: memory.store(text, role=who, session_id="s1", occurred_at=day, importance="high").id
            for key, day, text in turns}  # fmt: skip


def facts_of(memory: Memory, who: str = "Sam") -> list[Fact]:
    """The person's facts, current then closed."""
    profile = memory.entity(who)
    return [*profile.facts, *profile.closed_facts]

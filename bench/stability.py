"""Whether recall's first cards depend on how many were asked for, and how far updates reach.

A person asking for 5 cards and one asking for 50 must see the same first 5: a card that
another's larger `top_k` lifts to the top (an update reaching further down) would make the
answer depend on an argument that only says how much to show. `first_cards_agree` compares
the first `k` card ids of each asked size; `supersedes_most` is the largest number of older
cards one card says it replaces (`engine.recall.updates`): an update replaces the cards about
its own slot, a handful, not dozens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.models import MemoryCard

__all__ = ["Stability", "first_cards_agree", "supersedes_most"]


def first_cards_agree(k: int, *asked: Sequence[MemoryCard]) -> bool:
    """Whether every recall's first `k` cards are the same cards in the same order.

    >>> from datetime import UTC, datetime
    >>> at = datetime(2026, 1, 1, tzinfo=UTC)
    >>> def card(id):
    ...     return MemoryCard(id=id, namespace="n", content=id, score=1.0, occurred_at=at, created_at=at,
    ...                       session_id=None, role=None, kind="message", layer="episodic", importance=0.5,
    ...                       entities=[], metadata={})
    >>> first_cards_agree(2, [card("a"), card("b")], [card("a"), card("b"), card("c")])
    True
    >>> first_cards_agree(2, [card("a"), card("b")], [card("c"), card("a"), card("b")])
    False
    """
    firsts = {tuple(card.id for card in cards[:k]) for cards in asked}
    return len(firsts) == 1


def supersedes_most(cards: Sequence[MemoryCard]) -> int:
    """The most older cards any one card says it replaces (0 when none replaces any)."""
    return max((len(card.trace.supersedes) for card in cards if card.trace is not None), default=0)


@dataclass
class Stability:
    """Tallies over a benchmark's questions."""

    k: int
    questions: int = 0
    agreeing: int = 0
    most_superseded: int = 0
    disagreeing: list[str] = field(default_factory=list)

    def add(self, question: str, small: Sequence[MemoryCard], *larger: Sequence[MemoryCard]) -> None:
        self.questions += 1
        if first_cards_agree(self.k, small, *larger):
            self.agreeing += 1
        else:
            self.disagreeing.append(question)
        self.most_superseded = max([self.most_superseded, *(supersedes_most(c) for c in (small, *larger))])

    def summary(self) -> dict[str, object]:
        return {
            "k": self.k,
            "questions": self.questions,
            "first_k_agree": round(100 * self.agreeing / self.questions, 1) if self.questions else None,
            "disagreeing": self.disagreeing[:10],
            "most_superseded": self.most_superseded,
        }

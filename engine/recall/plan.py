"""Recall declared as data: which channels are asked and which adjusters shape the result.

Today's recall is `RecallPlan()` with nothing left out. `settings.recall_off` names what a
plan leaves out, for an ablation (`python -m bench.locomo --ablate` runs every one in turn):

- a channel left out is not run and weighs nothing in fusion, as if its weight were 0;
- an adjuster left out does not touch the ranked list (`time_window`: no extra searches
  inside a date the question names; `session_spread`: a gathering question's cards are not
  spread across sessions; `updates`: no memory is marked as updating another; `mmr`: no
  diversity pass, whatever mmr_lambda says; `facts`: no semantic-memory cards; `digests`: no
  session digest cards; `fixes`: a fix is not raised above its failure, nor the newest fix of
  an error above the older ones).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ADJUSTERS", "CHANNELS", "RecallPlan"]

# In fusion order: the order in which each card's channel contributions are summed.
CHANNELS = ("vector", "keyword", "entity", "graph", "recency", "side", "reply", "session", "fix")
ADJUSTERS = ("time_window", "session_spread", "updates", "mmr", "facts", "digests", "fixes")


@dataclass(frozen=True)
class RecallPlan:
    """The channels and adjusters a recall runs.

    >>> plan = RecallPlan.leaving_out(["graph", "updates"])
    >>> plan.runs("graph"), plan.runs("vector"), plan.applies("updates")
    (False, True, False)
    >>> RecallPlan.leaving_out(["telepathy"])
    Traceback (most recent call last):
    ValueError: recall_off: 'telepathy' is no channel or adjuster (channels: vector, keyword, entity, graph, recency, side, reply, session, fix; adjusters: time_window, session_spread, updates, mmr, facts, digests, fixes)
    """

    off: frozenset[str] = frozenset()

    @classmethod
    def leaving_out(cls, names: Iterable[str]) -> RecallPlan:
        """The default plan without `names`.

        Raises:
            ValueError: a name is neither a channel nor an adjuster.
        """
        chosen = frozenset(names)
        for name in sorted(chosen):
            if name not in CHANNELS and name not in ADJUSTERS:
                raise ValueError(
                    f"recall_off: {name!r} is no channel or adjuster (channels: "
                    f"{', '.join(CHANNELS)}; adjusters: {', '.join(ADJUSTERS)})"
                )
        return cls(chosen)

    def runs(self, channel: str) -> bool:
        return channel not in self.off

    def applies(self, adjuster: str) -> bool:
        return adjuster not in self.off

    @property
    def channels(self) -> tuple[str, ...]:
        """The channels run, in fusion order."""
        return tuple(name for name in CHANNELS if name not in self.off)

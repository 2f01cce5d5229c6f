"""Coverage across sessions, pure: a question that gathers ("how many times", "what has she
read", "一共", "哪些") is answered by several sessions, not by the best one repeated.

For such a question, each card after the first of its session is multiplied by
`session_repeat_factor` once per card of that session ranked above it, so that the top k
reaches the other sessions that hold evidence before it repeats one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from engine.recall.rerank import Candidate, Factors

__all__ = ["gathers", "spread_by_session"]

# Strong cues only: "what activities ..." or "which ... did" ask for one fact as often as
# for many, and spreading those would cost such questions their best session.
_GATHERS = re.compile(
    r"\bhow (?:many|often)\b|\btotal\b"
    r"|\bwhat (?:\w+ ){0,2}(?:has|have) \w+ (?:\w+ed|done|made|read|tried|grown|seen|been)\b"
    r"|一共|总共|每次|哪些|几次|多少次|哪几",
    re.IGNORECASE,
)


def gathers(query: str) -> bool:
    """Whether the question gathers over memories rather than asking for one.

    >>> gathers("How many times did Tom go climbing?"), gathers("阿杰一共去爬了几次山？")
    (True, True)
    >>> gathers("What has Maya grown in her garden?"), gathers("When did Maya adopt Pebble?")
    (True, False)
    """
    return _GATHERS.search(query) is not None


def spread_by_session(
    ranked: Sequence[tuple[float, Candidate, Factors]], repeat: float
) -> list[tuple[float, Candidate, Factors]]:
    """`ranked` (best first) with each card's repeats of its session discounted, best first.

    >>> from engine.models import Episode
    >>> def item(i, session, final):
    ...     episode = Episode(id=i, namespace="n", content=i, session_id=session, occurred_at=0,
    ...                       created_at=0)
    ...     return final, Candidate(episode, final, ()), Factors(1, 1, 1, 1, 1, 1)
    >>> spread = spread_by_session([item("a", "s1", 1.0), item("b", "s1", 0.9),
    ...                             item("c", "s2", 0.7)], 0.5)
    >>> [(c.episode.id, round(f, 2), x.session) for f, c, x in spread]
    [('a', 1.0, 1.0), ('c', 0.7, 1.0), ('b', 0.45, 0.5)]
    """
    seen: dict[str, int] = {}
    spread = []
    for final, candidate, factors in ranked:
        session = candidate.episode.session_id
        earlier = seen.get(session, 0) if session is not None else 0
        if session is not None:
            seen[session] = earlier + 1
        factor = repeat**earlier
        spread.append((final * factor, candidate, replace(factors, session=factor)))
    return sorted(spread, key=lambda item: -item[0])

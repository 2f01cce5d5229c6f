"""Sessions in recall: the sessions a question asks about, their episodes as a channel, and
digest cards.

A question about a session ("our first conversation", "last time", "上次") or about
everything said at a time ("what did we talk about on May 2?") asks about whole sessions:
the namespace's sessions resolve it in time order (the last one is the latest other than
the caller's own), and the `session` channel (`engine.recall.stages.SessionEpisodes`) offers their live
episodes, the digest's central ones first. Their digests are the first cards. Any other question may reach a
digest through the digests' own points, by its words and meaning, scored

    final = fused x digest_card_weight

A digest card's id is the digest's, its kind "digest", its `related_ids` the episodes it
draws on (its central ones first).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.models import ChannelHit, MemoryCard, Trace
from engine.recall.analysis import QueryAnalysis
from engine.recall.stages import RecallContext, fuse_for
from engine.stores.base import SessionRow
from engine.views import Digest

__all__ = ["asked_sessions", "digest_cards"]

# A question about a day's talk reaches at most this many of its sessions.
_MOST_SESSIONS = 3


def asked_sessions(
    sessions: Sequence[SessionRow], analysis: QueryAnalysis, *, current: str | None
) -> list[str]:
    """The sessions a question asks about as wholes, oldest first: the first or the last
    (the latest that is not `current`, the caller's own), or those of a time it asks
    everything about (at most three, the longest).

    >>> rows = [SessionRow(session_id=s, started_at=t, ended_at=t + 60, episodes=n, last_created_at=t)
    ...         for s, t, n in (("a", 0.0, 3), ("b", 86_400.0, 5), ("c", 172_800.0, 2))]
    >>> from engine.recall.analysis import analyse
    >>> asked_sessions(rows, analyse("What did we talk about last time?", 200_000.0), current="c")
    ['b']
    >>> asked_sessions(rows, analyse("Remind me of our first conversation", 200_000.0), current=None)
    ['a']
    >>> asked_sessions(rows, analyse("What did we discuss on 2 January 1970?", 200_000.0), current=None)
    ['b']
    >>> asked_sessions(rows, analyse("What did we decide about Redis?", 200_000.0), current=None)
    []
    """
    if not sessions:
        return []
    if analysis.session == "first":
        return [min(sessions, key=lambda r: (r.started_at, r.session_id)).session_id]
    if analysis.session == "last":
        others = [r for r in sessions if r.session_id != current] or list(sessions)
        return [max(others, key=lambda r: (r.ended_at, r.session_id)).session_id]
    window = analysis.time.window
    if analysis.time.broad and window is not None:
        inside = [r for r in sessions if r.started_at < window[1] and r.ended_at >= window[0]]
        longest = sorted(inside, key=lambda r: (-r.episodes, r.started_at))[:_MOST_SESSIONS]
        return [r.session_id for r in sorted(longest, key=lambda r: (r.started_at, r.session_id))]
    return []


def digest_cards(c: RecallContext, best: float) -> list[MemoryCard]:
    """The digest cards of one recall: the asked sessions' first, scored just above `best`
    (the best other card's score) in session order; then digests found by the question."""
    # Found as the session asked about: by the session channel when it ran, else by the plan.
    asked = [ChannelHit(channel="session", rank=1, score=1.0)] if c.plan.runs("session") else []
    cards = [
        _card(c.asked_digests[s], best * (1 + 1e-3 * (len(c.asked) - i)) or 1e-3, best, asked, c)
        for i, s in enumerate(c.asked) if s in c.asked_digests
    ]  # fmt: skip
    weight, limit = c.settings.digest_card_weight, c.settings.fact_candidates
    if weight <= 0 or limit == 0:
        return cards
    found = c.digest_points
    fused = fuse_for(found, {s: c.weights[s] for s in found}, c.settings)
    shown = {card.id for card in cards}
    wanted = [i for i in fused if i not in shown]
    for digest in c.reads.digests(wanted) if wanted else []:
        score, hits = fused[digest.id]
        final = score * weight
        if c.request.min_score is None or final >= c.request.min_score:
            cards.append(_card(digest, final, score, [h.channel_hit() for h in hits], c))
    return cards


def _card(digest: Digest, final: float, fused: float, channels: list[ChannelHit], c: RecallContext) -> MemoryCard:
    cited = [s.episode_id for s in digest.sentences]
    return MemoryCard(
        id=digest.id, namespace=digest.namespace, content=digest.text, score=round(final, 6),
        occurred_at=digest.started_at, created_at=digest.built_at, session_id=digest.session_id,
        role=None, kind="digest", layer="episodic", importance=1.0, entities=list(digest.topics),
        related_ids=list(dict.fromkeys(cited + digest.episode_ids)),
        metadata={"episodes": len(digest.episode_ids), "ended_at": digest.ended_at.isoformat(),
                  "topics": list(digest.topics)},
        trace=Trace(channels=channels, fused=round(fused, 6),
                    decay=1.0, age_days=round(max(0.0, c.now - digest.started_at.timestamp()) / 86_400.0, 3),
                    importance=1.0, final=round(final, 6)),
    )  # fmt: skip

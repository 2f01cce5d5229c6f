"""Digests of idle sessions for a library user, who may never call `reflect` or `maintain`.

A conversation has no explicit end most of the time: it pauses. A session whose latest episode
was stored `digest_idle_minutes` ago and whose digest is missing or older gets one, as the
server's maintenance loop does it: a `Periodic` thread per open `Memory`, waking a few times
per idle period, which `Memory.close` stops and joins.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.lifecycle.periodic import Periodic

__all__ = ["idle_digests", "wake_interval"]


def wake_interval(idle_seconds: float) -> float:
    """How often the thread looks: four times per idle period, between 1 s and a minute.

    >>> wake_interval(1800), wake_interval(2), wake_interval(0.5)
    (60.0, 1.0, 1.0)
    """
    return max(1.0, min(60.0, idle_seconds / 4))


def idle_digests(digest_idle: Callable[[], None], idle_seconds: float) -> Periodic:
    """The thread calling `digest_idle()`; none runs when `idle_seconds` is 0 (only
    `end_session` and `reflect` digest then)."""
    interval = wake_interval(idle_seconds) if idle_seconds > 0 else 0.0
    return Periodic(digest_idle, interval, "hindsight-idle-digests")

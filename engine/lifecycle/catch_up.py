"""Reflection until a namespace is caught up: bounded runs, one after another.

One `reflect` reads at most `reflection_batch_size` episodes, so that it holds the writer
briefly; whoever wants every new episode read (`hindsight reflect`, the demo, the server's
schedule) calls this. Each run is written when it ends: stopped half-way, what was read
stays read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.views import ReflectionSummary

__all__ = ["reflect_to_end"]

_COUNTS = ("episodes_seen", "clusters", "facts_written", "facts_reinforced", "facts_closed")


class Reflecting(Protocol):
    def reflect(self, *, namespace: str = ..., force: bool = ...) -> ReflectionSummary: ...


def reflect_to_end(
    memory: Reflecting,
    namespace: str,
    *,
    force: bool = False,
    advance: Callable[[int], None] | None = None,
    stop: Callable[[ReflectionSummary], bool] | None = None,
) -> tuple[ReflectionSummary, int]:
    """Reflection runs until one finds nothing new, or `stop(last run)` holds, `advance` told
    the episodes read so far; returns their sum and how many ran. `force` re-reads from the
    first episode once; the runs after it go on from where it stopped."""
    runs: list[ReflectionSummary] = []
    while not (runs and stop is not None and stop(runs[-1])):
        run = memory.reflect(namespace=namespace, force=force and not runs)
        if run.status != "done":
            break
        runs.append(run)
        if advance is not None:
            advance(sum(r.episodes_seen for r in runs))
    if not runs:
        return run, 0
    total = {name: sum(getattr(r, name) for r in runs) for name in _COUNTS}
    return runs[-1].model_copy(update={**total, "ran_at": runs[0].ran_at}), len(runs)

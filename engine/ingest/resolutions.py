"""Which step fixed which failure, in a task run or a session. Pure.

A run is a task's steps (`task_id`), or else a session's latest episodes. Its episodes are read
in the order they occurred; a new one is placed among them:

- a step that names failures (`resolves`) fixed them: the caller's word;
- a success confirms the latest earlier failure of the run not yet resolved that it is about
  (the same tool, a shared entity, or the same error signature). The fix is the last step
  between the two that did not fail (the change made: "pip install ruamel.yaml" between a
  failing and a passing "python etl.py"), or the success itself when nothing came between (a
  retry, or a call with other arguments). Earlier failures of the same error in the run are
  resolved by the same fix. A caller who knows better names the failure (`resolves`);
- a failure with another signature, on the same tool, after a failure and a step that did not
  fail, means the first error was got past (the next one shows): the step between fixed it;
- a failure with the same signature as one already resolved in the run, after its fix, shows
  that fix did not hold (`held` false, `recurred_by` the new failure); an unresolved earlier
  failure with steps between that did not fail gets the last of them as a fix that did not hold.

A failure is an episode whose outcome is failure, or a tool call or task whose caller gave no
outcome but whose text shows an error signature. A task's own episode, when it has steps, is
the run's heading, never a step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.models import Outcome, Resolution

__all__ = ["RunStep", "derive_resolutions", "failed"]

By = Literal["caller", "run"]


class RunStep(BaseModel):
    """What derivation reads of an episode of a run."""

    model_config = ConfigDict(frozen=True)

    id: str
    at: float  # occurred_at; ties keep the run's order
    kind: str
    outcome: Outcome | None = None
    tool: str | None = None
    signature: str | None = None  # the key of its error signature, if it shows one
    entities: frozenset[str] = frozenset()  # the entities it mentions, its signature's aside
    resolves: tuple[str, ...] = ()  # the failures its caller said it fixed
    heading: bool = False  # a task's own episode, with steps


# Records one edge: failure, fix, how it was found, the success that confirmed it.
Resolve = Callable[[RunStep, RunStep, By, "RunStep | None"], None]


def failed(step: RunStep) -> bool:
    """Whether a step failed: its outcome says so, or, none given, a tool call or task shows
    an error signature."""
    if step.outcome is not None:
        return step.outcome == "failure"
    return step.kind in ("tool_call", "task") and step.signature is not None


def _about(failure: RunStep, success: RunStep) -> bool:
    """Whether a success is about what a failure was: the same tool, a shared entity, the
    same error."""
    return bool(
        (failure.tool and failure.tool == success.tool)
        or (failure.entities & success.entities)
        or (failure.signature and failure.signature == success.signature)
    )


def _fix_between(steps: Sequence[RunStep], start: int, end: int) -> RunStep | None:
    """The last step strictly between two positions that did not fail and is no heading."""
    for step in reversed(steps[start + 1 : end]):
        if not step.heading and not failed(step) and step.outcome != "failure":
            return step
    return None


def derive_resolutions(
    run: Iterable[RunStep], new_ids: Iterable[str], existing: Sequence[Resolution]
) -> tuple[list[Resolution], list[tuple[str, str, str]]]:
    """The RESOLVED_BY edges that the run's new episodes (`new_ids`) add, and the existing
    ones (of `existing`, or added here) they show did not hold, as (failure, fix, recurred_by).

    >>> step = lambda i, at, **kw: RunStep(id=i, at=at, kind="tool_call", **kw)
    >>> run = [step("f", 1, outcome="failure", tool="python", signature="modulenotfounderror x"),
    ...        step("pip", 2, outcome="success", tool="pip"), step("ok", 3, outcome="success", tool="python")]
    >>> new, _ = derive_resolutions(run, ["f", "pip", "ok"], [])
    >>> [(r.failure_id, r.fix_id, r.confirmed_by) for r in new]
    [('f', 'pip', 'ok')]
    """
    steps = sorted(run, key=lambda s: s.at)  # stable: the run's order breaks ties
    position = {s.id: i for i, s in enumerate(steps)}
    fresh = set(new_ids)
    edges: dict[str, Resolution] = {r.failure_id: r for r in existing}
    added: list[Resolution] = []
    not_held: list[tuple[str, str, str]] = []

    def resolve(failure: RunStep, fix: RunStep, by: By, confirmed: RunStep | None, held: bool = True,
                recurred: str | None = None) -> None:  # fmt: skip
        edge = Resolution(failure_id=failure.id, fix_id=fix.id, at=fix.at, derived_by=by,
                          confirmed_by=confirmed.id if confirmed is not None and confirmed.id != fix.id else None,
                          held=held, recurred_by=recurred)  # fmt: skip
        edges[failure.id] = edge
        added.append(edge)

    for index, step in enumerate(steps):
        if step.id not in fresh or step.heading:
            continue
        for named in step.resolves:
            if named in position and named not in edges:
                resolve(steps[position[named]], step, "caller", None)
        earlier = [s for s in steps[:index] if not s.heading and failed(s)]
        if failed(step):
            _recurred(step, earlier, steps, position, edges, not_held)
            for failure in reversed(earlier):
                if failure.id in edges:
                    continue
                between = _fix_between(steps, position[failure.id], index)
                if between is None or not (failure.tool and failure.tool == step.tool):
                    continue
                if failure.signature and failure.signature == step.signature:
                    resolve(failure, between, "run", None, held=False, recurred=step.id)
                else:
                    resolve(failure, between, "run", step)  # the next error shows this one was got past
                break
        elif step.outcome == "success":
            _confirm(step, index, earlier, steps, position, edges, resolve)
    return added, not_held


def _recurred(
    step: RunStep, earlier: list[RunStep], steps: Sequence[RunStep], position: dict[str, int],
    edges: dict[str, Resolution], not_held: list[tuple[str, str, str]],
) -> None:  # fmt: skip
    """A failure of an error already fixed in the run, after the fix: that fix did not hold."""
    if step.signature is None:
        return
    for failure in earlier:
        edge = edges.get(failure.id)
        if (edge is not None and edge.held and failure.signature == step.signature
                and position.get(edge.fix_id, len(steps)) < position[step.id]):  # fmt: skip
            not_held.append((failure.id, edge.fix_id, step.id))
            edges[failure.id] = edge.model_copy(update={"held": False, "recurred_by": step.id})


def _confirm(step: RunStep, index: int, earlier: list[RunStep], steps: Sequence[RunStep],
             position: dict[str, int], edges: dict[str, Resolution], resolve: Resolve) -> None:  # fmt: skip
    """A success resolves the latest earlier unresolved failure it is about, and the earlier
    unresolved failures of the same error, with the last step between as the fix."""
    open_failures = [f for f in earlier if f.id not in edges]
    latest = next((f for f in reversed(open_failures) if _about(f, step)), None)
    if latest is None:
        return
    fix = _fix_between(steps, position[latest.id], index) or step
    same_error = [f for f in open_failures if f is latest or (
        latest.signature and f.signature == latest.signature and position[f.id] < position[fix.id])]  # fmt: skip
    for failure in same_error:
        resolve(failure, fix, "run", step)

"""The links a batch adds to an agent's work: each step to its task (`STEP_OF`), each failure
to its fix (`RESOLVED_BY`, `engine.ingest.resolutions`). Read inside the write transaction:
the runs the batch's episodes join, what those runs hold already, and the fixes found before.

A batch of chat turns (no outcome, no tool call, no task, nothing resolved) reads nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from engine.ingest.pipeline import PlannedEpisode
from engine.ingest.resolutions import RunStep, derive_resolutions
from engine.models import Episode, Resolution
from engine.signatures import ENTITY_TYPE
from engine.stores.base import IngestGraph
from engine.work import WORK_KINDS, episode_signature, tool_of

__all__ = ["WorkLinks", "work_links"]

RunKey = tuple[str, str, str]  # namespace, "task" or "session", its id


class WorkLinks(NamedTuple):
    steps: list[tuple[str, str, int]]  # step, task, index
    resolutions: list[Resolution]
    not_held: list[tuple[str, str, str]]  # failure, fix, recurred_by


def _is_work(item: PlannedEpisode) -> bool:
    request = item.request
    return bool(request.outcome or request.kind in WORK_KINDS or request.resolves or request.task_id)


def _run_key(item: PlannedEpisode) -> RunKey | None:
    request = item.request
    if request.task_id:
        return (request.namespace, "task", request.task_id)
    if request.session_id:
        return (request.namespace, "session", request.session_id)
    return None


def _new_step(item: PlannedEpisode, at: float, heading: bool) -> RunStep:
    request = item.request
    signature = next((e.canonical for e in item.entities if e.type == ENTITY_TYPE), None)
    return RunStep(
        id=item.id, at=at, kind=request.kind, outcome=request.outcome,
        tool=tool_of(request.role, request.metadata), signature=signature,
        entities=frozenset(e.id for e in item.entities if e.type != ENTITY_TYPE),
        resolves=tuple(request.resolves), heading=heading,
    )  # fmt: skip


def _stored_step(episode: Episode, entities: Sequence[str], heading: bool) -> RunStep:
    found = episode_signature(episode.content, kind=episode.kind, outcome=episode.outcome, role=episode.role,
                              metadata=episode.metadata)  # fmt: skip
    return RunStep(
        id=episode.id, at=episode.occurred_at, kind=episode.kind, outcome=episode.outcome,
        tool=tool_of(episode.role, episode.metadata), signature=found.key if found else None,
        entities=frozenset(entities), heading=heading,
    )  # fmt: skip


def work_links(
    graph: IngestGraph, planned: Sequence[PlannedEpisode], occurred: Mapping[str, float], *, now: float, window: int
) -> WorkLinks:
    """The STEP_OF and RESOLVED_BY edges `planned` adds (`occurred`: when each happened), and
    the fixes it shows did not hold. A session's run is its latest `window` episodes."""
    wholes = [p for p in planned if p.parent_id is None]
    if not any(_is_work(p) for p in wholes):
        return WorkLinks([], [], [])
    runs: dict[RunKey, list[PlannedEpisode]] = {}
    for item in wholes:
        key = _run_key(item)
        if key is not None:
            runs.setdefault(key, []).append(item)
    headings = {p.request.task_id for p in wholes if p.request.task_id}
    steps: list[tuple[str, str, int]] = []
    added: list[Resolution] = []
    not_held: list[tuple[str, str, str]] = []
    batch = {p.id for p in wholes}
    for (namespace, kind, run_id), items in runs.items():
        if kind == "session" and all(p.id in headings for p in items):
            continue  # a task's own episode is no step of its session: nothing to link
        known = graph.task_steps(namespace, [run_id]).get(run_id, []) if kind == "task" else []
        if kind == "task":
            first = max((index for index, _ in known), default=-1) + 1
            steps += [(p.id, run_id, first + i) for i, p in enumerate(sorted(items, key=lambda p: occurred[p.id]))]
        stored = _stored_run(graph, namespace, kind, run_id, known, batch, now=now, window=window)
        named = {i for p in items for i in p.request.resolves} - {e.id for e in stored} - batch
        stored += graph.get_episodes(namespace, sorted(named))
        if not any(_is_work(p) for p in items):
            continue
        ids = [e.id for e in stored]
        links = graph.entities_of(namespace, ids)
        tasks = [e.id for e in stored if e.kind == "task" and e.id not in headings]
        with_steps = headings | set(graph.task_steps(namespace, tasks)) if tasks else headings
        run = [
            _stored_step(e, [x.id for x in links.get(e.id, []) if x.type != ENTITY_TYPE], e.id in with_steps)
            for e in stored if e.id not in batch
        ] + [_new_step(p, occurred[p.id], p.id in headings) for p in items]  # fmt: skip
        new, broken = derive_resolutions(run, [p.id for p in items], graph.resolutions(namespace, ids))
        added += new
        not_held += broken
    return WorkLinks(steps, added, not_held)


def _stored_run(
    graph: IngestGraph, namespace: str, kind: str, run_id: str, steps: Sequence[tuple[int, Episode]],
    batch: set[str], *, now: float, window: int,
) -> list[Episode]:  # fmt: skip
    """What a run holds already: a task (unless this batch writes it) and its live `steps`, or
    a session's latest episodes."""
    if kind == "session":
        return graph.session_tail(namespace, run_id, now, window)
    task = [] if run_id in batch else graph.get_episodes(namespace, [run_id])
    return task + [e for _, e in steps if e.deleted_at is None][-window:]

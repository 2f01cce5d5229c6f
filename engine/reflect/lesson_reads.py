"""What reflection reads to write lessons (`engine.reflect.lessons`): the signatures a run's
episodes touch, every live failure of each with its fix, the lessons stated about it, and the
lesson edges already written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.llm import Extractor
from engine.models import Entity, Episode, Resolution
from engine.reflect.lessons import (
    FIX_TYPE,
    Incident,
    LessonFields,
    LessonPlan,
    SignatureIncidents,
    plan_lessons,
)
from engine.reflect.reconcile import FactWrite
from engine.settings import Settings
from engine.signatures import ENTITY_TYPE
from engine.stores.base import ReflectionGraph
from engine.views import LESSON_RULES
from engine.work import episode_signature, tool_of

__all__ = ["LessonWrites", "lesson_writes"]


class LessonWrites(NamedTuple):
    plan: LessonPlan
    entities: list[Entity]  # the FIX entities the lessons name
    mentions: list[tuple[str, str, int]]  # a fix's episode MENTIONS its FIX entity
    groups: int  # the signatures whose failures were grouped (a run's `clusters`)


def _failed(episode: Episode) -> bool:
    if episode.outcome is not None:
        return episode.outcome == "failure"
    return episode_signature(episode.content, kind=episode.kind, outcome=None, role=episode.role,
                             metadata=episode.metadata) is not None  # fmt: skip


def lesson_writes(
    graph: ReflectionGraph, namespace: str, episodes: Sequence[Episode], *, now: float, settings: Settings,
    extractor: Extractor | None = None,
) -> LessonWrites:
    """The lessons of every signature the episodes show or fix, planned against those written;
    with an LLM, the new and changed ones in its words where they hold the lesson's fields."""
    ids = [e.id for e in episodes]
    touched = ids + [r.failure_id for r in graph.resolutions(namespace, ids)]
    signatures = {
        x.id: x for found in graph.entities_of(namespace, touched).values() for x in found if x.type == ENTITY_TYPE
    }  # fmt: skip
    if not signatures:
        return LessonWrites(LessonPlan(), [], [], 0)
    links = graph.episodes_mentioning(namespace, sorted(signatures), now, settings.lesson_incidents)
    shown = {e.id: e for e in graph.get_episodes(namespace, sorted({link.episode_id for link in links}))}
    edges = {r.failure_id: r for r in graph.resolutions(namespace, sorted(shown)) if r.failure_id in shown}
    fixes = {e.id: e for e in graph.live_episodes(namespace, sorted({r.fix_id for r in edges.values()}), now)}
    by_signature: dict[str, list[Incident]] = {}
    for link in links:
        episode = shown.get(link.episode_id)
        if episode is None:
            continue
        incident = _incident(episode, edges, fixes)
        if incident is not None:
            by_signature.setdefault(link.entity_id, []).append(incident)
    grouped = [SignatureIncidents(id=s, name=signatures[s].name, head=signatures[s].name.split(": ", 1)[0],
                                  incidents=found) for s, found in by_signature.items()]  # fmt: skip
    existing = [f for f in graph.facts_about(namespace, sorted(signatures), include_closed=True, whole=True)
                if f.rule in LESSON_RULES]  # fmt: skip
    plan = plan_lessons(namespace, grouped, existing, now=now, scale=settings.fact_support_scale,
                        half_life=settings.fact_half_life_days, floor=settings.fact_recency_floor,
                        phrased=extractor is not None)  # fmt: skip
    if extractor is not None:
        plan.writes = [_phrased(write, plan.fields.get(write.id), extractor) for write in plan.writes]
    return LessonWrites(plan, *_fix_entities(graph, namespace, plan, now), len(grouped))


def _phrased(write: FactWrite, fields: LessonFields | None, extractor: Extractor) -> FactWrite:
    """A lesson the LLM says in a sentence of its own, where that sentence holds the lesson's
    error, fix and counts (`LessonFields.says`); else as the rules said it."""
    if fields is None or write.rule != "lesson":
        return write
    answer = extractor.lesson(fields.facts())
    if answer is None or not fields.says(answer.text):
        return write
    return write.model_copy(update={"statement": answer.text.strip()})


def _incident(episode: Episode, edges: dict[str, Resolution], fixes: dict[str, Episode]) -> Incident | None:
    """A failure with its fix (if any, and still live), or a lesson the agent stated."""
    if episode.layer == "semantic":
        return Incident(failure_id=None, failed_at=episode.occurred_at, fix_id=episode.id,
                        fix_at=episode.occurred_at, fix_text=episode.content, stated=True)  # fmt: skip
    if not _failed(episode):
        return None
    tool = tool_of(episode.role, episode.metadata)
    edge = edges.get(episode.id)
    fix = fixes.get(edge.fix_id) if edge is not None else None
    if edge is None or fix is None:
        return Incident(failure_id=episode.id, failed_at=episode.occurred_at, tool=tool)
    return Incident(failure_id=episode.id, failed_at=episode.occurred_at, fix_id=fix.id, fix_at=fix.occurred_at,
                    fix_text=fix.content, held=edge.held, tool=tool)  # fmt: skip


def _fix_entities(
    graph: ReflectionGraph, namespace: str, plan: LessonPlan, now: float
) -> tuple[list[Entity], list[tuple[str, str, int]]]:
    """The FIX entities of the lessons written, and the MENTIONS their fix episodes lack."""
    used = {w.object_id for w in plan.writes}
    wanted = sorted({(e, x) for e, x in plan.mentions if x in used})
    linked = {(e, x.id) for e, found in graph.entities_of(namespace, sorted({e for e, _ in wanted})).items() for x in found}
    new = [(e, x) for e, x in wanted if (e, x) not in linked]
    entities = [
        Entity(id=x, namespace=namespace, name=name, canonical=key, type=FIX_TYPE, first_seen=now, last_seen=now,
               mention_count=sum(1 for _, y in new if y == x), created_at=now)
        for x, (key, name) in plan.fixes.items() if x in used
    ]  # fmt: skip
    return entities, [(e, x, 1) for e, x in new]

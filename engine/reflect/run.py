"""One reflection run for a namespace: read new episodes, derive, reconcile, plan lessons, write.

Bounded by `reflection_batch_size` episodes and `reflection_time_budget` seconds; the
Reflection node it writes records where it stopped (`until`), so the next run goes on from
there. All writes of a run are one graph transaction.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence

from engine.embed import Embedder
from engine.errors import StoreUnavailable, WriteFailed
from engine.fact_points import write_fact_points
from engine.fact_text import fact_text
from engine.ingest.pipeline import entity_id
from engine.inputs import StoreRequest
from engine.llm import Extractor, LLMStatement, LLMStatements
from engine.log_text import prose
from engine.models import Entity, Episode, StoreResult
from engine.nlp import parse_english
from engine.reflect.derive import CandidateFact, EntityRef, EpisodeView, derive_facts
from engine.reflect.lesson_reads import lesson_writes
from engine.reflect.reconcile import ActiveFact, FactPlan, FactWrite, object_words, reconcile
from engine.reflect.roles import is_assistant, is_user
from engine.reflect.rule_book import rules_off
from engine.reflect.statements import english_statements
from engine.reflect.statements_zh import chinese_statements
from engine.reflect.vocabulary import Statement
from engine.reflect.word_lists import WordLists
from engine.settings import Settings
from engine.stores.base import GraphBatch, ReflectionGraph
from engine.stores.vectors import VectorStore
from engine.text import canonical_name, has_cjk
from engine.views import Fact, ReflectionSummary
from engine.work import WORK_KINDS

_WORDS = WordLists("run")

__all__ = ["learning_events", "reflect_namespace", "relearn_lessons", "statements_of"]

log = logging.getLogger(__name__)

_FIRST_PERSON = _WORDS("first_person")
_SECOND_PERSON = _WORDS("second_person")


def learning_events(requests: list[StoreRequest], results: list[StoreResult]) -> list[str]:
    """The namespaces where a failed task or a stated lesson was just stored: an event worth
    learning from at once, so the store reflects on them."""
    return sorted({
        r.namespace
        for r, result in zip(requests, results, strict=True)
        if result.status == "stored" and ((r.kind == "task" and r.outcome == "failure") or r.layer == "semantic")
    })  # fmt: skip


def reflect_namespace(
    graph: ReflectionGraph,
    settings: Settings,
    namespace: str,
    *,
    now: float,
    facts: VectorStore,
    embedder: Embedder,
    from_start: bool = False,
    extractor: Extractor | None = None,
) -> ReflectionSummary:
    """Reflect over the namespace's episodes since the last run (or from the first episode);
    write its facts, then their points in `facts` (`engine/fact_points.py`)."""
    started = time.monotonic()
    cursor = (0.0, "") if from_start else graph.reflection_cursor(namespace)
    episodes = graph.episodes_after(namespace, cursor, now, settings.reflection_batch_size)
    run_id = str(uuid.uuid4())
    if not episodes:
        return ReflectionSummary(id=run_id, namespace=namespace, ran_at=now, episodes_seen=0,
                                 clusters=0, facts_written=0, facts_reinforced=0,
                                 facts_closed=0, until=cursor[0], until_id=cursor[1],
                                 status="nothing_new")  # fmt: skip
    # With an LLM, as many episodes as the time budget allows (one at least) are read; the
    # cursor stops after the last one read, so the next run goes on from there.
    statements = statements_of(
        [e.content for e in episodes], [e.role for e in episodes], extractor,
        deadline=started + settings.reflection_time_budget, kinds=[e.kind for e in episodes],
    )  # fmt: skip
    episodes = episodes[: len(statements)]
    off = rules_off(settings.reflection_rule_floor, settings.reflection_rule_min_facts)
    statements = [[s for s in said if s.rule not in off] for said in statements]
    views, made = _views(graph, namespace, episodes, statements, now, settings.user_name)
    candidates, plan = _reconciled(graph, namespace, derive_facts(views), now, settings)
    lessons = lesson_writes(graph, namespace, episodes, now=now, settings=settings, extractor=extractor)
    plan.writes += lessons.plan.writes
    plan.closes += lessons.plan.closes
    summary = ReflectionSummary(
        id=run_id,
        namespace=namespace,
        ran_at=now,
        episodes_seen=len(episodes),
        clusters=lessons.groups,
        facts_written=sum(not w.reinforces for w in plan.writes),
        facts_reinforced=sum(w.reinforces for w in plan.writes),
        facts_closed=len(plan.closes),
        until=episodes[-1].created_at,  # read in (created_at, id) order
        until_id=episodes[-1].id,
    )
    reinforced = [w.id for w in plan.writes if w.reinforces]
    # A reinforced fact whose words stay the same keeps its point (and its place in the index).
    before = {f.id: fact_text(f) for f in graph.facts_by_id(namespace, reinforced, include_closed=False)}
    entities, mentions = _concept_links(plan, candidates, views, now)
    graph.write(_batch(plan, summary, made, (entities + lessons.entities, mentions + lessons.mentions), now))
    _write_points(graph, namespace, plan, before, facts, embedder, settings)
    return summary


def _reconciled(
    graph: ReflectionGraph, namespace: str, candidates: list[CandidateFact], now: float, settings: Settings,
) -> tuple[list[CandidateFact], FactPlan]:  # fmt: skip
    """The candidates that are new evidence, and what they write and close among the facts
    the graph holds about their entities."""
    involved = sorted({c.subject.id for c in candidates} | {c.object.id for c in candidates})
    known = graph.facts_about(namespace, involved, include_closed=True, whole=True)
    # What an episode already stated is not evidence again when it is read again (`force`):
    # else a fact it had closed would come back as a new one beside what closed it.
    recorded = {(f.subject_id, f.predicate, f.object_id, f.negated, i) for f in known for i in f.source_episode_ids}
    candidates = [c for c in candidates if (*c.key, c.negated, c.episode_id) not in recorded]
    active = [
        ActiveFact(id=f.id, subject_id=f.subject_id, predicate=f.predicate, negated=f.negated,
                   object_id=f.object_id, confidence=f.confidence, support=f.support,
                   valid_from=f.valid_from, source_episode_ids=f.source_episode_ids,
                   object_words=object_words(f.object), refers_to=f.refers_to)
        for f in known if f.valid_to is None
    ]  # fmt: skip
    plan = reconcile(candidates, active, now=now, min_support=settings.fact_min_support,
                     scale=settings.fact_support_scale, half_life=settings.fact_half_life_days,
                     floor=settings.fact_recency_floor)  # fmt: skip
    return candidates, plan


def _write_points(
    graph: ReflectionGraph, namespace: str, plan: FactPlan, before: dict[str, str],
    facts: VectorStore, embedder: Embedder, settings: Settings,
) -> None:  # fmt: skip
    """The points of the facts whose words changed (`before`: a reinforced fact's words as
    they were); a failure is logged, since the graph holds the facts."""
    try:
        written = graph.facts_by_id(namespace, [w.id for w in plan.writes], include_closed=False)
        changed = [f for f in written if before.get(f.id) != fact_text(f)]
        write_fact_points(facts, embedder, changed, namespace, settings)
        # A fact written and closed within this run has no point (qdrant-client's local
        # mode refuses to mark a missing one). Marked, as `fact_points.live_fact_points` says.
        facts.mark_deleted(sorted(facts.payloads([close.old for close in plan.closes])))
    except (StoreUnavailable, WriteFailed) as exc:
        # The graph holds the facts: recall still finds them by the entities named.
        log.warning("fact points not written (%s): `hindsight doctor --repair` rebuilds them", exc)


def relearn_lessons(
    graph: ReflectionGraph, namespace: str, signature_ids: Sequence[str], *, now: float, settings: Settings,
    facts: VectorStore, embedder: Embedder,
) -> None:
    """The lessons of these error signatures derived again from the episodes that show them,
    after a purge removed them with some of their failures, fixes or stated lessons. The
    reflection cursor stays where it was."""
    if not signature_ids:
        return
    links = graph.episodes_mentioning(namespace, sorted(signature_ids), now, settings.lesson_incidents)
    episodes = graph.get_episodes(namespace, sorted({link.episode_id for link in links}))
    if not episodes:
        return
    lessons = lesson_writes(graph, namespace, episodes, now=now, settings=settings)
    plan = FactPlan(writes=lessons.plan.writes, closes=lessons.plan.closes)
    until, until_id = graph.reflection_cursor(namespace)
    summary = ReflectionSummary(id=str(uuid.uuid4()), namespace=namespace, ran_at=now, episodes_seen=len(episodes),
                                clusters=lessons.groups, facts_written=len(plan.writes), facts_reinforced=0,
                                facts_closed=len(plan.closes), until=until, until_id=until_id)  # fmt: skip
    graph.write(_batch(plan, summary, {}, (lessons.entities, lessons.mentions), now))
    write_fact_points(facts, embedder, graph.facts_by_id(namespace, [w.id for w in plan.writes], include_closed=False),
                      namespace, settings)  # fmt: skip


def statements_of(
    texts: list[str], roles: list[str | None], extractor: Extractor | None = None,
    *, deadline: float | None = None, kinds: list[str] | None = None,
) -> list[list[Statement]]:
    """What each text states: the LLM's answer where one is configured and answers, else
    English by its parse and Chinese by its tags. A leading "Name:" that repeats the role is
    the transcript's, not the speaker's words; the lines of machine output (stack frames,
    JSON, log records: `engine.log_text.prose`) state nothing, nor does a tool call or a task
    (`kinds`): an agent's work is read as signatures, fixes and lessons. The LLM is asked one
    text at a time until the `deadline` (time.monotonic()); the texts after it are left out of
    the answer, which always holds the first."""
    work = [kind in WORK_KINDS for kind in kinds] if kinds is not None else [False] * len(texts)
    bodies = ["" if is_work else prose(_without_role(text, role))
              for text, role, is_work in zip(texts, roles, work, strict=True)]  # fmt: skip
    answered: list[LLMStatements | None] = []
    if extractor is None:
        answered = [None] * len(bodies)
    else:
        for body in bodies:
            if answered and deadline is not None and time.monotonic() > deadline:
                break
            answered += extractor.statements([body]) if body.strip() else [None]
        bodies = bodies[: len(answered)]
    found: list[list[Statement]] = [[] for _ in bodies]
    for i, answer in enumerate(answered):
        if answer is not None:
            found[i] = [_from_llm(s, bodies[i]) for s in answer.statements]
    rules = [i for i, answer in enumerate(answered) if answer is None and bodies[i].strip()]
    english = [i for i in rules if not has_cjk(bodies[i])]
    for i, doc in zip(english, parse_english([bodies[i] for i in english]), strict=True):
        found[i] = english_statements(doc)
    for i in rules:
        if has_cjk(bodies[i]):
            found[i] = chinese_statements(bodies[i])
    return found


def _from_llm(said: LLMStatement, text: str) -> Statement:
    who = said.subject.strip()
    kind = (
        "speaker" if who.lower() in _FIRST_PERSON
        else "other" if who.lower() in _SECOND_PERSON
        else "named"
    )  # fmt: skip
    return Statement(subject_kind=kind, subject=who, predicate=said.predicate, object=said.object,
                     object_key=canonical_name(said.object), negated=said.negated,
                     hedged=said.hedged, sentence=text, rule="llm")  # fmt: skip


def _without_role(text: str, role: str | None) -> str:
    if role and text.startswith(f"{role}:"):
        return text[len(role) + 1 :].lstrip()
    return text


def party(role: str | None, user_name: str) -> str | None:
    """The name a role stands for as the subject of facts: a person's role is their name,
    `user` is `user_name`, an assistant is nobody.

    >>> party("Caroline", "the user"), party("user", "the user"), party("assistant", "Dana")
    ('Caroline', 'the user', None)
    """
    if role is None or is_assistant(role):
        return None
    return user_name if is_user(role) else role


def _session_parties(episodes: list[Episode]) -> dict[str, tuple[str, ...]]:
    """The roles of each session that has exactly two: "you" is the other one."""
    roles: dict[str, set[str]] = {}
    for episode in episodes:
        if episode.session_id and episode.role:
            roles.setdefault(episode.session_id, set()).add(episode.role)
    return {session: tuple(sorted(r)) for session, r in roles.items() if len(r) == 2}


def _views(
    graph: ReflectionGraph, namespace: str, episodes: list[Episode],
    statements: list[list[Statement]], now: float, user_name: str,
) -> tuple[list[EpisodeView], dict[str, Entity]]:
    """What derivation reads, and the speaker entities it may need created. A role names
    its speaker, but for the parties of a chat: `user` is `user_name` and an assistant is no
    subject (`party`)."""
    ids = [e.id for e in episodes]
    entities = graph.entities_of(namespace, ids)
    decisions = graph.decisions_of(namespace, ids)
    made: dict[str, Entity] = {}

    def named(name: str | None, kind: str, at: float) -> EntityRef | None:
        canonical = canonical_name(name or "")
        if not canonical:
            return None
        key = entity_id(namespace, canonical)
        made.setdefault(key, Entity(id=key, namespace=namespace, name=str(name),
                                    canonical=canonical, type=kind, first_seen=at,
                                    last_seen=at, mention_count=0, created_at=now))  # fmt: skip
        return EntityRef(id=key, name=str(name))

    parties = _session_parties(episodes)
    views = []
    for episode, stated in zip(episodes, statements, strict=True):
        pair = parties.get(episode.session_id or "", ())
        other = next((r for r in pair if r != episode.role), None) if episode.role in pair else None
        views.append(
            EpisodeView(
                id=episode.id,
                namespace=namespace,
                content=episode.content,
                occurred_at=episode.occurred_at,
                kind=episode.kind,
                role=episode.role,
                metadata=episode.metadata,
                entities=[EntityRef(id=e.id, name=e.name) for e in entities.get(episode.id, [])],
                decisions=[d.text for d in decisions.get(episode.id, [])],
                speaker=named(party(episode.role, user_name), "PERSON", episode.occurred_at),
                other=named(party(other, user_name), "PERSON", episode.occurred_at),
                statements=stated,
            )
        )
    return views, made


def _concept_links(
    plan: FactPlan, candidates: list[CandidateFact], views: list[EpisodeView], now: float
) -> tuple[list[Entity], list[tuple[str, str, int]]]:
    """The CONCEPT entities the plan's facts need, and MENTIONS edges from the episodes that
    state them, so that a concept links its episodes in the graph as a named entity does.
    An episode already linked (a forced re-read) gets no second edge."""
    used = {w.subject_id for w in plan.writes} | {w.object_id for w in plan.writes}
    linked = {(v.id, e.id) for v in views for e in v.entities}
    at = {v.id: v.occurred_at for v in views}
    entities: dict[str, Entity] = {}
    mentions: set[tuple[str, str]] = set()
    for fact in candidates:
        concept = fact.object
        if concept.type is None or concept.canonical is None or concept.id not in used:
            continue
        if (fact.episode_id, concept.id) in linked or (fact.episode_id, concept.id) in mentions:
            continue
        mentions.add((fact.episode_id, concept.id))
        when = at[fact.episode_id]
        known = entities.get(concept.id)
        entities[concept.id] = Entity(
            id=concept.id, namespace=views[0].namespace, name=concept.name,
            canonical=concept.canonical, type=concept.type,
            first_seen=min(when, known.first_seen) if known else when,
            last_seen=max(when, known.last_seen) if known else when,
            mention_count=(known.mention_count if known else 0) + 1, created_at=now,
        )  # fmt: skip
    return list(entities.values()), sorted((e, c, 1) for e, c in mentions)


def _batch(
    plan: FactPlan,
    summary: ReflectionSummary,
    made: dict[str, Entity],
    concepts: tuple[list[Entity], list[tuple[str, str, int]]],
    now: float,
) -> GraphBatch:
    def as_fact(write: FactWrite) -> Fact:
        data = write.model_dump(exclude={"reinforces"})
        return Fact(subject="", object="", reflection_id=summary.id, **data)

    used = {w.subject_id for w in plan.writes} | {w.object_id for w in plan.writes}
    concept_entities, mentions = concepts
    return GraphBatch(
        # Speaker entities only when a new fact needs them; MERGE keeps existing ones.
        entities=[e for key, e in made.items() if key in used] + concept_entities,
        mentions=mentions,
        facts=[as_fact(w) for w in plan.writes if not w.reinforces],
        fact_updates=[as_fact(w) for w in plan.writes if w.reinforces],
        fact_closes=[(close.old, close.new, close.at) for close in plan.closes],
        reflections=[summary],
    )

"""Look one record up in depth: an episode with its reasons, an entity with what is known of it.

Reads only, through the `ReadingGraph` protocol. `Memory.explain` and `Memory.entity` call these.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.errors import InvalidInput, NotFound, StoreUnavailable
from engine.fact_text import profile_text
from engine.inputs import is_unicode_text
from engine.models import Entity, Episode, from_epoch
from engine.settings import Settings
from engine.signatures import ENTITY_TYPE as SIGNATURE
from engine.stores.base import ReadingGraph
from engine.stores.vectors import VectorStore
from engine.text import MAX_NAME_CHARS, canonical_name
from engine.views import LESSON_RULES, EntityProfile, EpisodeExplanation, Fact, Health, Neighbour

__all__ = ["entity_profile", "explain_episode", "one_entity", "store_health", "why_sentence"]


def explain_episode(
    graph: ReadingGraph, namespace: str, episode_id: str, *, now: float, settings: Settings
) -> EpisodeExplanation:
    """The episode, its entities and decisions, its session neighbours and the episodes that
    share its entities, with one sentence on why it exists.

    Raises:
        NotFound: no episode has that id in the namespace.
    """
    found = graph.get_episodes(namespace, [episode_id])
    if not found:
        raise NotFound("episode", episode_id)
    episode = found[0]
    entities = graph.entities_of(namespace, [episode_id]).get(episode_id, [])
    decisions = graph.decisions_of(namespace, [episode_id]).get(episode_id, [])

    neighbours: list[Neighbour] = []
    previous, following = graph.session_neighbours(namespace, episode_id)
    for relation, other in (("previous", previous), ("next", following)):
        if other is not None:
            neighbours.append(_neighbour(other, relation, None))
    seen = {episode_id} | {n.id for n in neighbours}
    links = graph.episodes_mentioning(
        namespace, [e.id for e in entities], now, settings.explain_neighbours + len(seen)
    )
    shared: dict[str, str] = {}
    for link in links:
        if link.episode_id in seen:
            continue
        # Of several shared entities, the first by name: entity ids depend on the namespace,
        # so an order by id would name another one for the same memory elsewhere.
        known = shared.get(link.episode_id)
        if known is None or link.entity_name < known:
            shared[link.episode_id] = link.entity_name
    shared = dict(list(shared.items())[: settings.explain_neighbours])
    for other in sorted(
        graph.get_episodes(namespace, list(shared)), key=lambda e: -e.occurred_at
    ):
        neighbours.append(_neighbour(other, "shares_entity", shared[other.id]))
    return EpisodeExplanation(
        episode=episode,
        entities=entities,
        decisions=decisions,
        neighbours=neighbours,
        why=why_sentence(episode),
        resolutions=graph.resolutions(namespace, [episode_id]),
    )


def entity_profile(
    graph: ReadingGraph, namespace: str, name: str, *, now: float, settings: Settings
) -> EntityProfile:
    """The entity named `name` (its canonical name or an alias), its current facts grouped
    (and the closed ones apart), a line of them for a prompt, the decisions about it and
    its latest episodes.

    Raises:
        NotFound: no entity of the namespace has that name or alias.
    """
    matches = graph.find_entities(namespace, [canonical_name(name)])
    if not matches:
        raise NotFound("entity", name)
    # Several entities can share an alias; the most mentioned one is what the caller means.
    entity = max(matches, key=lambda e: (e.mention_count, e.last_seen))
    links = graph.episodes_mentioning(namespace, [entity.id], now, settings.profile_episodes)
    order = list(dict.fromkeys(link.episode_id for link in links))
    episodes = {e.id: e for e in graph.get_episodes(namespace, order)}
    facts = graph.facts_about(namespace, [entity.id], include_closed=True)
    current = grouped_facts([f for f in facts if f.valid_to is None])
    decisions = graph.decisions_about(namespace, [entity.id], settings.profile_episodes)
    latest_decided = sorted(decisions, key=lambda d: -d.decided_at)
    return EntityProfile(
        entity=entity,
        facts=current,
        lessons=_lessons_near(graph, namespace, entity, order),
        closed_facts=sorted((f for f in facts if f.valid_to is not None), key=lambda f: -(f.valid_to or 0.0)),
        summary=profile_text(entity.name, [f for f in current if f.subject_id == entity.id], decided=latest_decided),
        decisions=decisions,
        latest_episodes=[episodes[i] for i in order if i in episodes],
    )


def _lessons_near(graph: ReadingGraph, namespace: str, entity: Entity, episode_ids: Sequence[str]) -> list[Fact]:
    """The current lessons of the errors the entity's latest episodes show: a service's or a
    tool's profile holds what was learned from its failures. A signature's own lessons are
    among its facts."""
    if entity.type == SIGNATURE or not episode_ids:
        return []
    near = {e.id for found in graph.entities_of(namespace, episode_ids).values() for e in found if e.type == SIGNATURE}
    lessons = graph.facts_about(namespace, sorted(near), include_closed=False) if near else []
    return sorted((f for f in lessons if f.rule in LESSON_RULES), key=lambda f: (-f.support, -f.valid_from, f.id))


def grouped_facts(facts: list[Fact]) -> list[Fact]:
    """Facts grouped by predicate; in a group by support, then the latest first; the groups
    in the order of their best facts. A predicate said of many things once each ("likes")
    does not lead over one said three times ("has kids").

    >>> fact = lambda p, o, support, at: Fact(subject="Mel", predicate=p, object=o, statement="",
    ...                                       confidence=1, support=support, valid_from=at)
    >>> facts = [fact("likes", o, 1, at) for o, at in (("jazz", 3), ("tea", 4), ("art", 5))]
    >>> [(f.predicate, f.object) for f in grouped_facts([*facts, fact("has", "kids", 3, 1), fact("play", "clarinet", 1, 2)])]
    [('has', 'kids'), ('likes', 'art'), ('likes', 'tea'), ('likes', 'jazz'), ('play', 'clarinet')]
    """
    groups: dict[str, list[Fact]] = {}
    for fact in sorted(facts, key=lambda f: (-f.support, -f.valid_from, f.object)):
        groups.setdefault(fact.predicate, []).append(fact)
    order = sorted(groups.values(), key=lambda group: (-group[0].support, -group[0].valid_from, group[0].predicate))
    return [f for group in order for f in group]


def one_entity(graph: ReadingGraph, namespace: str, name: str, field: str = "entity") -> Entity:
    """The entity a human means by `name` (canonical name or alias; the most mentioned).

    Raises:
        InvalidInput: the name (the argument `field`) is empty. NotFound: no entity has it.
    """
    if not is_unicode_text(name) or not canonical_name(name):
        raise InvalidInput(field, "must be a non-empty entity name")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInput(field, f"must be at most {MAX_NAME_CHARS} characters")
    found = graph.find_entities(namespace, [canonical_name(name)])
    if not found:
        raise NotFound("entity", name)
    return max(found, key=lambda e: e.mention_count)


def store_health(
    graph: ReadingGraph, vectors: VectorStore, backend: str, namespaces: Sequence[str] | None = None
) -> Health:
    """Whether both stores answer, with their counts over `namespaces` (None: all of them; an
    empty list: one request to each store, counting nothing); never raises."""
    # The empty name is no namespace's: a lookup that answers without reading any data.
    scopes: Sequence[str | None] = [None] if namespaces is None else (namespaces or [""])
    episodes = points = None
    problems = []
    try:
        now = time.time()
        episodes = sum(graph.stats(namespace, now).episodes for namespace in scopes)
    except StoreUnavailable as exc:
        problems.append(str(exc))
    try:
        points = sum(vectors.count(namespace) for namespace in scopes)
    except StoreUnavailable as exc:
        problems.append(str(exc))
    counted = namespaces is None or bool(namespaces)
    return Health(
        status="ok" if episodes is not None and points is not None else "degraded",
        backend=backend,
        graph="ok" if episodes is not None else "unreachable",
        vectors="ok" if points is not None else "unreachable",
        episodes=episodes if counted else None,
        vector_points=points if counted else None,
        detail="; ".join(problems) or None,
    )


def why_sentence(episode: Episode) -> str:
    """One sentence on why an episode is in memory.

    >>> from engine.models import Episode
    >>> why_sentence(Episode(id="e1", namespace="a", content="x", kind="tool_call", role="git",
    ...     session_id="s1", importance=0.8, occurred_at=0.0, created_at=0.0,
    ...     metadata={"source": "ci"}))
    'A tool call by git in session s1 at 1970-01-01T00:00:00Z, stored as episodic memory with importance 0.80 (high); source: ci.'
    >>> why_sentence(Episode(id="e1", namespace="a", content="x", kind="task", outcome="failure",
    ...     importance=0.5, occurred_at=0.0, created_at=0.0))[:14]
    'A failed task '
    """
    kind = episode.kind.replace("_", " ")
    if episode.outcome is not None:
        kind = f"{'failed' if episode.outcome == 'failure' else 'successful'} {kind}"
    article = "An" if kind[0] in "aeiou" else "A"
    parts = [f"{article} {kind}"]
    if episode.role:
        parts.append(f"by {episode.role}")
    if episode.session_id:
        parts.append(f"in session {episode.session_id}")
    when = from_epoch(episode.occurred_at).strftime("%Y-%m-%dT%H:%M:%SZ")
    level = "high" if episode.importance >= 0.7 else "medium" if episode.importance >= 0.4 else "low"
    sentence = (
        " ".join(parts) + f" at {when}, stored as {episode.layer} memory with importance "
        f"{episode.importance:.2f} ({level})"
    )
    source = episode.metadata.get("source")
    if isinstance(source, str):
        sentence += f"; source: {source}"
    if episode.deleted_at is not None:
        sentence += "; forgotten (soft-deleted) since " + from_epoch(episode.deleted_at).isoformat()
    return sentence + "."


def _neighbour(episode: Episode, relation: str, via: str | None) -> Neighbour:
    return Neighbour.model_validate(
        {
            "id": episode.id,
            "relation": relation,
            "via": via,
            "summary": episode.summary or episode.content[:160],
            "occurred_at": from_epoch(episode.occurred_at),
        }
    )

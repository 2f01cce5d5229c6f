"""An in-process copy of each namespace's MENTIONS edges (with its entities, and its
episodes' content hashes), for the embedded graph store.

Recall walks episode -> entity -> episode, two hops deep. On Ladybug each hop's two reads are
statements of 1-7 ms each, whatever their size; from dicts the same answers take
microseconds. The graph stays the source of truth: a namespace's index is read from it at
its first use, kept current by the batches `write` commits (new episodes, entities and
mentions are all a store adds) and by soft deletes and restores, and dropped by any other
write, to be read again when next needed. Only an embedded store may hold one: no other
process writes its graph.

The answers are the Cypher statements' answers (`paths_from_episodes`, `paths_to_entities`,
`find_by_hash`, `find_entities`): tests compare the two on the same graph.
"""

from __future__ import annotations

import bisect
import heapq
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.models import Entity
from engine.stores.base import EntityLink, GraphBatch

__all__ = ["MentionIndex", "NamespaceMentions"]


@dataclass(slots=True)
class _Episode:
    occurred_at: float
    deleted_at: float | None
    archived_at: float | None
    expires_at: float | None
    content_hash: str = ""  # what the duplicate check of a store looks up ("": none)
    created_at: float = 0.0
    # One entry per MENTIONS edge, as the graph holds them (a repeated edge repeats).
    entities: list[str] = field(default_factory=list)

    def live(self, now: float) -> bool:
        """As the statements' `_live`: not deleted, not archived, not expired at `now`."""
        return (
            self.deleted_at is None
            and self.archived_at is None
            and (self.expires_at is None or self.expires_at > now)
        )


@dataclass(slots=True)
class _Entity:
    name: str
    degree: int  # the entity's mention_count property, as the statements read it
    # Its episodes newest first (ties by id), so that the newest edges of a few entities are
    # a merge of the heads of their lists, not a sort of all of them.
    episodes: list[str] = field(default_factory=list)
    # The node as `find_entities` returns it (None for one known only by an edge).
    node: Entity | None = None


class NamespaceMentions:
    """One namespace's episodes (with what decides whether they are live, and their content
    hashes), its entities and the MENTIONS edges between them, both ways; and whether it may
    hold an active FACT."""

    def __init__(self, *, active_facts: bool) -> None:
        self.episodes: dict[str, _Episode] = {}
        self.entities: dict[str, _Entity] = {}
        self.by_hash: dict[str, list[str]] = {}  # content hash -> its episodes, in any state
        self.by_name: dict[str, set[str]] = {}  # canonical name or alias -> its entities
        self.active_facts = active_facts

    @classmethod
    def from_rows(
        cls,
        episodes: Iterable[Sequence[Any]],
        entities: Iterable[Entity],
        mentions: Iterable[Sequence[Any]],
        *,
        active_facts: bool,
    ) -> NamespaceMentions:
        """From the store's rows: (id, occurred_at, deleted_at, archived_at, expires_at,
        content_hash, created_at), the namespace's entities and (episode id, entity id,
        entity name, mention_count).
        An edge names its entity too, so an edge to another namespace's entity (which the
        store never writes) would still be followed as the statements follow it."""
        built = cls(active_facts=active_facts)
        for episode_id, occurred_at, deleted_at, archived_at, expires_at, digest, created_at in episodes:
            built.add_episode(
                str(episode_id), float(occurred_at), deleted_at, archived_at, expires_at,
                content_hash=str(digest or ""), created_at=float(created_at or 0.0),
            )  # fmt: skip
        for entity in entities:
            built.merge_entity(entity)
        for episode_id, entity_id, name, degree in mentions:
            if str(entity_id) not in built.entities:
                built.entities[str(entity_id)] = _Entity(str(name), int(degree or 0))
            built.add_mention(str(episode_id), str(entity_id), in_order=False)
        for held in built.entities.values():
            held.episodes.sort(key=built._newest_first)  # once, not an insertion per edge
        return built

    def add_episode(
        self,
        episode_id: str,
        occurred_at: float,
        deleted_at: float | None,
        archived_at: float | None,
        expires_at: float | None,
        *,
        content_hash: str = "",
        created_at: float = 0.0,
    ) -> None:
        self.episodes[episode_id] = _Episode(
            occurred_at, deleted_at, archived_at, expires_at, content_hash, created_at
        )
        if content_hash:
            self.by_hash.setdefault(content_hash, []).append(episode_id)

    def merge_entity(self, entity: Entity) -> None:
        """A new entity, or more of a known one: as the store's MERGE, which adds the
        mention counts, joins the aliases (first seen first) and widens first/last seen."""
        known = self.entities.get(entity.id)
        if known is None:
            node = entity.model_copy(deep=True)
            self.entities[entity.id] = _Entity(node.name, node.mention_count, node=node)
        else:
            known.degree += entity.mention_count
            if known.node is None:
                return
            node = known.node = known.node.model_copy(
                update={
                    "mention_count": known.node.mention_count + entity.mention_count,
                    "aliases": list(dict.fromkeys([*known.node.aliases, *entity.aliases])),
                    "first_seen": min(known.node.first_seen, entity.first_seen),
                    "last_seen": max(known.node.last_seen, entity.last_seen),
                }
            )
        for name in (node.canonical, *node.aliases):
            self.by_name.setdefault(name, set()).add(node.id)

    def add_mention(self, episode_id: str, entity_id: str, *, in_order: bool = True) -> bool:
        """An edge; False when either end is unknown here (the store would not create it).
        `in_order=False` leaves the entity's episodes for the caller to sort."""
        episode, entity = self.episodes.get(episode_id), self.entities.get(entity_id)
        if episode is None or entity is None:
            return False
        episode.entities.append(entity_id)
        if in_order:
            bisect.insort(entity.episodes, episode_id, key=self._newest_first)
        else:
            entity.episodes.append(episode_id)
        return True

    def _newest_edges(self, entity_ids: list[str]) -> Iterator[tuple[str, str]]:
        """The entities' edges newest first, ties by episode id then entity id, as
        (episode id, entity id)."""
        if len(entity_ids) == 1:  # most hops cross one entity: its list is in that order
            entity_id = entity_ids[0]
            return ((episode_id, entity_id) for episode_id in self.entities[entity_id].episodes)
        # Each entity's edges come newest first: merged, they come in the answer's order.
        merged = heapq.merge(*(self._edges(entity_id) for entity_id in entity_ids))
        return ((episode_id, entity_id) for _, episode_id, entity_id in merged)

    def _edges(self, entity_id: str) -> Iterator[tuple[float, str, str]]:
        """An entity's edges newest first, as (-occurred_at, episode id, entity id)."""
        for episode_id in self.entities[entity_id].episodes:
            yield -self.episodes[episode_id].occurred_at, episode_id, entity_id

    def _newest_first(self, episode_id: str) -> tuple[float, str]:
        return -self.episodes[episode_id].occurred_at, episode_id

    def entity_links(self, episode_ids: Iterable[str], now: float, max_degree: int) -> list[EntityLink]:
        """The entities of each live episode, hubs (degree over `max_degree`) left out."""
        links = []
        for episode_id in dict.fromkeys(episode_ids):
            episode = self.episodes.get(episode_id)
            if episode is None or not episode.live(now):
                continue
            for entity_id in episode.entities:
                entity = self.entities[entity_id]
                if entity.degree <= max_degree:
                    # Built in place, by position: a recall makes a few hundred.
                    links.append(EntityLink(episode_id, entity_id, entity.name, entity.degree))
        return links

    def episodes_mentioning(self, entity_ids: Sequence[str], now: float, limit: int) -> list[EntityLink]:
        """The live episodes that mention the entities, newest first, `limit` edges at most.

        Ties in time go by episode id, then entity id: the statement leaves them to the
        store's order, which no caller may depend on.
        """
        known = [entity_id for entity_id in dict.fromkeys(entity_ids) if entity_id in self.entities]
        links: list[EntityLink] = []
        for episode_id, entity_id in self._newest_edges(known):
            if len(links) >= limit:
                break
            if self.episodes[episode_id].live(now):
                entity = self.entities[entity_id]
                links.append(EntityLink(episode_id, entity_id, entity.name, entity.degree))
        return links

    def find_entities(self, names: Iterable[str]) -> list[Entity]:
        """The entities whose canonical name or an alias is among `names`, oldest first
        (ties by id); copies, so that no caller can change what the index holds."""
        ids = set().union(*(self.by_name.get(name, ()) for name in names))
        nodes = [node for i in ids if (node := self.entities[i].node) is not None]
        return [node.model_copy(deep=True) for node in sorted(nodes, key=lambda n: (n.created_at, n.id))]

    def find_by_hash(self, hashes: Iterable[str], now: float) -> dict[str, str]:
        """Per content hash, the live episode that has it, the first created (ties by id:
        the statement leaves them to the store's order)."""
        found: dict[str, str] = {}
        for digest in dict.fromkeys(hashes):
            live = [
                (self.episodes[i].created_at, i)
                for i in self.by_hash.get(digest, ())
                if self.episodes[i].live(now)
            ]  # fmt: skip
            if live:
                found[digest] = min(live)[1]
        return found


class MentionIndex:
    """The indexes of the namespaces recalled lately, kept current by committed batches:
    `max_episodes` at most between them (the least recently used go first), and none of a
    namespace larger than that on its own (the statements serve it)."""

    def __init__(self, max_episodes: int) -> None:
        self.max_episodes = max_episodes
        self._namespaces: OrderedDict[str, NamespaceMentions] = OrderedDict()
        self._too_large: set[str] = set()

    def get(self, namespace: str) -> NamespaceMentions | None:
        mentions = self._namespaces.get(namespace)
        if mentions is not None:
            self._namespaces.move_to_end(namespace)
        return mentions

    def admits(self, namespace: str, episodes: int | None = None) -> bool:
        """Whether a namespace of `episodes` episodes may be indexed; one found too large is
        remembered as such until the next drop, so that it is not read again each time."""
        if episodes is not None and episodes > self.max_episodes:
            self._too_large.add(namespace)
        return namespace not in self._too_large

    def put(self, namespace: str, mentions: NamespaceMentions) -> None:
        """Keep a namespace's index, dropping the least recently used to stay in bounds."""
        self._namespaces[namespace] = mentions
        self._namespaces.move_to_end(namespace)
        self._trim()

    def _trim(self) -> None:
        """Back within `max_episodes`: a namespace grown past it alone is let go and served by
        the statements from then on, then the least recently used go."""
        for namespace, mentions in list(self._namespaces.items()):
            if len(mentions.episodes) > self.max_episodes:
                del self._namespaces[namespace]
                self._too_large.add(namespace)
        total = sum(len(m.episodes) for m in self._namespaces.values())
        while total > self.max_episodes and len(self._namespaces) > 1:
            _, evicted = self._namespaces.popitem(last=False)
            total -= len(evicted.episodes)

    def drop(self) -> None:
        """Forget every namespace: a write the index cannot follow happened."""
        self._namespaces.clear()
        self._too_large.clear()

    def apply(self, batch: GraphBatch) -> None:
        """What a committed `write(batch)` added: in the order the store's statements run
        (episodes, then entities merged, then mentions)."""
        if not self._namespaces:
            return
        owner: dict[str, NamespaceMentions] = {}
        for episode in batch.episodes:
            mentions = self._namespaces.get(episode.namespace)
            if mentions is not None:
                mentions.add_episode(
                    episode.id, episode.occurred_at, episode.deleted_at, episode.archived_at,
                    episode.expires_at, content_hash=episode.content_hash,
                    created_at=episode.created_at,
                )  # fmt: skip
                owner[episode.id] = mentions
        for entity in batch.entities:
            mentions = self._namespaces.get(entity.namespace)
            if mentions is not None:
                mentions.merge_entity(entity)
        for episode_id, entity_id, _count in batch.mentions:
            mentions = owner.get(episode_id) or self._holding(episode_id)
            if mentions is not None and not mentions.add_mention(episode_id, entity_id):
                self.drop()  # an edge to an entity it does not know: read it all again
                return
        if batch.facts or batch.fact_updates or batch.fact_closes:
            for mentions in self._namespaces.values():
                mentions.active_facts = True  # facts carry no namespace: maybe any of them
        if batch.episodes:
            self._trim()

    def set_deleted(self, namespace: str, episode_id: str, at: float | None) -> None:
        """An episode soft-deleted at `at`, or restored (None)."""
        mentions = self._namespaces.get(namespace)
        if mentions is None:
            return
        episode = mentions.episodes.get(episode_id)
        if episode is None:
            self.drop()  # the graph holds an episode the index does not: read it all again
        else:
            episode.deleted_at = at

    def _holding(self, episode_id: str) -> NamespaceMentions | None:
        """The indexed namespace that holds an episode written before this batch."""
        return next((m for m in self._namespaces.values() if episode_id in m.episodes), None)

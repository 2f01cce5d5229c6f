"""What one recall reads of the graph after its channels, each thing once: live episodes,
the names of the entities they mention, the next turn of a question, facts and digests by id.

The reply channel, the ranking, the traces and the cards ask for overlapping ids, and on a
server each read is a round trip. A store that can answer them all in one statement does so
when recall names what it will need (`read_ahead`, on Neo4j); what it did not name is read
when asked, as the embedded store reads everything (in process, where the pruned reads of
`engine.recall.pipeline` cost less than reading every candidate).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.models import Episode
from engine.stores.base import RecallGraph
from engine.views import Digest, Fact

__all__ = ["RecallReads"]

EVERY_DEGREE = 2**62  # every entity an episode mentions, hubs too


class RecallReads:
    """The reads of one recall in `namespace` at `now`, kept for its length."""

    def __init__(self, graph: RecallGraph, namespace: str, now: float) -> None:
        self._graph, self._namespace, self._now = graph, namespace, now
        self._episodes: dict[str, Episode | None] = {}  # None: not live
        self._names: dict[str, list[str]] = {}
        self._next: dict[str, str | None] = {}
        self._facts: dict[str, Fact | None] = {}  # None: closed or gone
        self._digests: dict[str, Digest | None] = {}

    def read_ahead(
        self, episode_ids: Iterable[str], next_of: Iterable[str], fact_ids: Iterable[str], digest_ids: Iterable[str]
    ) -> None:
        """Read what recall will ask for in one statement, where the store can: episodes (with
        their entities' names), the next turns of `next_of`, facts and digests."""
        episodes = [i for i in dict.fromkeys(episode_ids) if i not in self._episodes]
        asking = [i for i in dict.fromkeys(next_of) if i not in self._next]
        facts = [i for i in dict.fromkeys(fact_ids) if i not in self._facts]
        digests = [i for i in dict.fromkeys(digest_ids) if i not in self._digests]
        rows = self._graph.read_ahead(self._namespace, episodes, asking, facts, digests, self._now)
        if rows is None:
            return
        self._episodes.update(rows.episodes)
        self._names.update(rows.names)
        self._next.update(rows.next_turns)
        self._facts.update((i, None) for i in facts)
        self._facts.update((f.id, f) for f in rows.facts)
        self._digests.update((i, None) for i in digests)
        self._digests.update((d.id, d) for d in rows.digests)

    def live_episodes(self, ids: Sequence[str]) -> list[Episode]:
        """The live episodes among `ids`."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._episodes]
        if missing:
            live = {e.id: e for e in self._graph.live_episodes(self._namespace, missing, self._now)}
            self._episodes.update((i, live.get(i)) for i in missing)
        return [episode for i in dict.fromkeys(ids) if (episode := self._episodes[i]) is not None]

    def entity_names(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The names of the entities each live episode of `ids` mentions, in name order."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._names]
        if missing:
            found: dict[str, set[str]] = {i: set() for i in missing}
            for link in self._graph.entity_links(self._namespace, missing, self._now, max_degree=EVERY_DEGREE):
                found[link.episode_id].add(link.entity_name)
            self._names.update((i, sorted(names)) for i, names in found.items())
        return {i: self._names[i] for i in ids if self._names[i]}

    def next_turns(self, ids: Sequence[str]) -> dict[str, str]:
        """The next turn of each of `ids` in its session, where there is one not deleted."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._next]
        if missing:
            found = self._graph.next_turns(self._namespace, missing)
            self._next.update((i, found.get(i)) for i in missing)
        return {i: turn for i in ids if (turn := self._next[i]) is not None}

    def active_facts(self, ids: Sequence[str]) -> list[Fact]:
        """The active facts among `ids`."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._facts]
        if missing:
            self._facts.update((i, None) for i in missing)
            self._facts.update((f.id, f) for f in self._graph.facts_by_id(self._namespace, missing, include_closed=False))
        return [fact for i in dict.fromkeys(ids) if (fact := self._facts[i]) is not None]

    def digests(self, ids: Sequence[str]) -> list[Digest]:
        """The digests among `ids` that exist."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._digests]
        if missing:
            self._digests.update((i, None) for i in missing)
            self._digests.update((d.id, d) for d in self._graph.digests_by_id(self._namespace, missing))
        return [digest for i in dict.fromkeys(ids) if (digest := self._digests[i]) is not None]

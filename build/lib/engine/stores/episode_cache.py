"""The episodes recall read lately, held in process for the embedded graph store.

Recall reads its candidate episodes by id once a query (`live_episodes`): on Ladybug a
statement of ~1 ms plus ~16 us an episode to turn its columns into a model, for episodes
that the next queries mostly ask for again. An episode changes only by a write, and only
this process writes an embedded graph: the store evicts an episode when a soft delete or
restore changes it, updates it as the access marks it writes and the touches of its
duplicates leave it (`marked`, `touched`), and drops them all on any other write, as it does
the MENTIONS index. (Evicted on a touch, the episodes people repeat most were the ones the
next recalls had to read from the graph: a fifth of those stored by a bulk store of 10k.)

Held is what the graph held when read: live then. Whether it is still live at another
`now` is the one thing time alone changes (expiry), and is checked on the way out.

>>> from engine.models import Episode
>>> cache = EpisodeCache(max_episodes=2)
>>> cache.put("ns", [Episode(id="a", namespace="ns", content="x", occurred_at=0, created_at=0,
...                          expires_at=100.0)])
>>> held, missing = cache.split("ns", ["a", "b"], now=50.0)
>>> [e.id for e in held], missing
(['a'], ['b'])
>>> cache.split("ns", ["a"], now=150.0)  # expired since: out, and not worth reading again
([], [])
>>> cache.split("other", ["a"], now=50.0)  # namespaces apart
([], ['a'])
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

from engine.models import Episode

__all__ = ["EpisodeCache", "touched"]


def touched(episode: Episode, at: float, source: str) -> Episode:
    """An episode as the graph's `touch` statement leaves it (a duplicate of it was stored
    at `at`, from `source`): seen once more, last seen at the later time, the source added.

    >>> from engine.models import Episode
    >>> seen = Episode(id="a", namespace="ns", content="x", occurred_at=0, created_at=0,
    ...                last_seen=50.0, sources=["cli"])
    >>> again = touched(seen, 20.0, "mcp")
    >>> again.last_seen, again.access_count, again.sources
    (50.0, 1, ['cli', 'mcp'])
    """
    last = episode.last_seen
    return episode.model_copy(
        update={
            "last_seen": at if last is None or at > last else last,
            "access_count": episode.access_count + 1,
            "sources": [*episode.sources, source],
        }
    )


class EpisodeCache:
    """At most `max_episodes` episodes, the least recently read going first."""

    def __init__(self, max_episodes: int) -> None:
        self.max_episodes = max_episodes
        self._held: OrderedDict[tuple[str, str], Episode] = OrderedDict()

    def __len__(self) -> int:
        return len(self._held)

    def split(self, namespace: str, ids: Sequence[str], now: float) -> tuple[list[Episode], list[str]]:
        """The held episodes among `ids` live at `now`, and the ids not held (to be read)."""
        held: list[Episode] = []
        missing: list[str] = []
        for episode_id in dict.fromkeys(ids):
            episode = self._held.get((namespace, episode_id))
            if episode is None:
                missing.append(episode_id)
                continue
            self._held.move_to_end((namespace, episode_id))
            if episode.expires_at is None or episode.expires_at > now:
                held.append(episode)
        return held, missing

    def put(self, namespace: str, episodes: Iterable[Episode]) -> None:
        """Hold episodes just read live from the graph."""
        for episode in episodes:
            self._held[(namespace, episode.id)] = episode
            self._held.move_to_end((namespace, episode.id))
        while len(self._held) > self.max_episodes:
            self._held.popitem(last=False)

    def get(self, namespace: str, episode_id: str) -> Episode | None:
        return self._held.get((namespace, episode_id))

    def evict(self, namespace: str, ids: Iterable[str]) -> None:
        """Forget episodes a write changed."""
        for episode_id in ids:
            self._held.pop((namespace, episode_id), None)

    def drop(self) -> None:
        """Forget every episode: a write this cache cannot follow happened."""
        self._held.clear()

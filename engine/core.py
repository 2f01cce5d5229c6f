"""What the parts of the façade share: the open stores, the writer, the audit log.

`Memory` builds one `Core` and hands it to each of its parts (`engine/reader.py`,
`engine/recall/recaller.py`, `engine/lifecycle/keeper.py`); the checks every method makes
before anything reaches a store (open, namespace, id) live here once.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from engine.embed import Embedder, SharedEmbedder
from engine.errors import HindsightError, InvalidInput, NotFound, StoreUnavailable
from engine.ingest.writer import Writer
from engine.inputs import check_namespace, is_unicode_text
from engine.lifecycle.audit import AuditLog
from engine.llm import extractor_for
from engine.models import Episode
from engine.settings import Settings
from engine.stores import GraphStore, VectorStore, open_archive

__all__ = ["MAX_ID_CHARS", "Core"]

# Episode ids are UUIDs (36 characters); anything much longer is not one of ours.
MAX_ID_CHARS = 128

log = logging.getLogger(__name__)


class Core:
    """The stores of one `Memory` and the state its methods share."""

    def __init__(
        self, *, graph: GraphStore, vectors: VectorStore, facts: VectorStore, digests: VectorStore,
        embedder: Embedder, settings: Settings,
    ) -> None:  # fmt: skip
        self.graph = graph
        self.vectors = vectors
        self.facts = facts  # the active facts' points (engine/fact_points.py)
        self.digests = digests  # the session digests' points (engine/reflect/digests.py)
        self.embedder = embedder
        self.settings = settings
        # One thread runs the embedder beside other work: a query's embedding while recall
        # reads the stores (if it leaves a core free: `QueryModels`), a batch's beside NER.
        self.model_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hindsight-embed")
        # Reflection's, digests' and repairs' batches, on that thread and the caller's.
        self.batch_embedder = SharedEmbedder(embedder, self.model_pool, settings.embed_part_size)
        self.closed = False
        self.audit = AuditLog(settings.data_dir / "audit.jsonl")
        self.archive = open_archive(settings)
        if vectors.count(None, exact=False) == 0 and graph.namespaces():
            # A new vector collection (another embedding model or multilingual setting) over
            # an existing graph: recall works on its other channels until the mirror is rebuilt.
            log.warning("the vector mirror is empty but the graph holds episodes: run "
                        "`hindsight doctor --repair` to embed them")  # fmt: skip
        self.extractor = extractor_for(settings)
        self.writer = Writer(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            settings=settings,
            extractor=self.extractor,
            model_pool=self.model_pool,
        )
        # The audit log's own method, not one of this core's: a callback holding the core would
        # make a cycle that keeps the models and stores of a closed Memory until the next full
        # garbage collection (hundreds of MB for each Memory opened and closed).
        self.writer.on_stored = partial(self.audit.record, "store")

    def check_open(self) -> None:
        if self.closed:
            raise StoreUnavailable("this Memory is closed")

    def scope(self, namespace: str, *ids: object, listed: str | None = None) -> None:
        """Check the memory is open, the namespace valid and each episode id a plausible id
        (before anything reaches a store); `listed` names the list argument the ids came in."""
        self.check_open()
        try:
            check_namespace(namespace)
        except ValueError as exc:
            raise InvalidInput("namespace", str(exc)) from None
        for n, episode_id in enumerate(ids):
            if not is_unicode_text(episode_id) or not 0 < len(episode_id) <= MAX_ID_CHARS:  # type: ignore[arg-type]
                raise InvalidInput("id" if listed is None else f"{listed}[{n}]", f"must be an episode id (text of 1..{MAX_ID_CHARS} characters)")

    def readable(self, namespace: str, include_shared: bool = True) -> list[str]:
        """The namespaces a caller of `namespace` reads: it, then the shared one."""
        if not include_shared:
            return [namespace]
        return list(dict.fromkeys([namespace, self.settings.shared_namespace]))

    def owner(self, id: str, namespace: str) -> tuple[str, Episode]:
        """The readable namespace that holds episode `id`, and the episode."""
        self.scope(namespace, id)
        for readable in self.readable(namespace):
            found = self.graph.get_episodes(readable, [id])
            if found:
                return readable, found[0]
        raise NotFound("episode", id)

    def log(self, action: str, namespace: str | None, ids: list[str], reason: str | None = None) -> None:
        self.audit.record(action, namespace, ids, reason)

    def close(self) -> None:
        """Keep what working memory holds worth keeping, then flush and close the stores.
        Safe to call twice."""
        if self.closed:
            return
        try:
            # Working memory lives in process: keep what is worth keeping before it goes.
            self.writer.promote(self.writer.working.drain())
        except HindsightError:
            pass  # closing must not fail; the stores are closed below either way
        with self.writer.lock:
            self.closed = True
            try:
                self.model_pool.shutdown(wait=True)
                if self.extractor is not None:
                    self.extractor.close()
                self.vectors.close()
                self.facts.close()
                self.digests.close()
            finally:
                self.graph.close()

"""The façade's recall: a request validated, working memory ranked, each readable
namespace recalled (`engine/recall/pipeline.py`), the cards merged, cut to `top_k` and to
the token budget, and the access of what is returned recorded."""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterable
from datetime import datetime

from pydantic import ValidationError

from engine.arguments import flag
from engine.core import Core
from engine.errors import InvalidInput, StoreUnavailable
from engine.inputs import RecallRequest, invalid_input
from engine.models import MemoryCard, RecallLayer
from engine.recall.pipeline import card_order, run_recall, within_budget
from engine.recall.query_models import query_models
from engine.recall.working import working_cards

__all__ = ["Recaller"]


class Recaller:
    """Recall over the `Core` of one `Memory`."""

    def __init__(self, core: Core) -> None:
        self._core = core
        # Counted once: afterwards only this process's writes (the writer keeps track) can fill
        # the shared namespace, as one process owns the stores. It saves a count per recall.
        self._shared_had_episodes = core.vectors.count(core.settings.shared_namespace) > 0

    def recall(
        self,
        query: str,
        *,
        namespace: str = "default",
        top_k: int = 5,
        min_score: float | None = None,
        session_id: str | None = None,
        layer: RecallLayer | None = None,
        role: str | None = None,
        capabilities: Iterable[str] | None = None,
        include_shared: bool = True,
        include_working: bool = True,
        now: datetime | str | float | None = None,
        max_tokens: int | None = None,
    ) -> list[MemoryCard]:
        """Recall the memories that answer a query, each with the trace of why.

        Args:
            query: a question or topic, in English or Chinese.
            namespace: whose memories to search.
            top_k: how many cards at most (1..200).
            min_score: drop cards whose final score is below this.
            session_id: prefer the latest episodes of this session in the recency channel.
            layer: only working, episodic or semantic memories; all when None.
            role: who is asking; memories by or for that role rank higher.
            capabilities: tool names the caller has; tool-call memories of other tools rank
                lower. None means unknown: nothing is lowered.
            include_shared: also search the shared namespace (`settings.shared_namespace`).
            include_working: with a session_id, also rank that session's working memory.
            now: the moment the question is asked (decay is measured from it); default now.
            max_tokens: a budget for the cards' content (words plus CJK characters, as
                `count_tokens`): cards are taken best first, and one that does not fit is
                left out while smaller ones after it may still fit. None: no budget.
        Returns:
            Cards, best first: content, citations (`id`, `related_ids`), `namespace` and `trace`.
        Raises:
            InvalidInput: a value is wrong.

        Example:
            >>> memory.recall("what did we decide about the database?", top_k=3)  # doctest: +SKIP
        """
        self._core.check_open()
        try:
            request = RecallRequest(
                query=query,
                namespace=namespace,
                top_k=top_k,
                min_score=min_score,
                session_id=session_id,
                layer=layer,
                role=role,
                capabilities=None if capabilities is None else _strings(capabilities),
                include_shared=flag("include_shared", include_shared),
                now=now,
                max_tokens=max_tokens,
            )
        except ValidationError as exc:
            raise invalid_input(exc, "") from None
        at = request.now if request.now is not None else time.time()
        models = query_models(request.query, at, self._core.embedder, self._core.model_pool, self._core.settings)
        cards: list[MemoryCard] = []
        include_working = flag("include_working", include_working)
        if request.layer in (None, "working") and (include_working or request.layer == "working"):
            # The session's scratchpad; with layer="working" and no session, the namespace's.
            if request.session_id is not None or request.layer == "working":
                items = self._core.writer.working.items(request.namespace, request.session_id)
                if items:
                    cards += [
                        card
                        for card in working_cards(
                            models.embedding, items, now=at, settings=self._core.settings
                        )
                        if request.min_score is None or card.score >= request.min_score
                    ]
        readable = [] if request.layer == "working" else self._readable(
            request.namespace, request.include_shared
        )
        for namespace_read in readable:
            cards += run_recall(
                request.model_copy(update={"namespace": namespace_read}),
                now=at,
                graph=self._core.graph,
                vectors=self._core.vectors,
                facts=self._core.facts,
                digests=self._core.digests,
                models=models,
                settings=self._core.settings,
            )
        cards.sort(key=card_order)
        top = within_budget(cards[: request.top_k], request.max_tokens)
        if self._core.settings.track_access:
            self._mark_accessed(top, time.time())
        return top

    def _mark_accessed(self, cards: builtins.list[MemoryCard], at: float) -> None:
        by_namespace: dict[str, builtins.list[str]] = {}
        for card in cards:
            if card.layer == "episodic" and card.kind != "digest":
                by_namespace.setdefault(card.namespace, []).append(card.id)
        # No write lock: the graph store serialises this with any open transaction itself.
        for namespace, ids in by_namespace.items():
            try:
                self._core.graph.mark_accessed(namespace, ids, at)
            except StoreUnavailable:
                pass  # bookkeeping only: a recall never fails for it

    def _readable(self, namespace: str, include_shared: bool) -> builtins.list[str]:
        """The namespace, then the shared one when asked for and it holds anything."""
        shared = self._core.settings.shared_namespace
        has_episodes = self._shared_had_episodes or shared in self._core.writer.stored_namespaces
        if not include_shared or namespace == shared or not has_episodes:
            return [namespace]
        return [namespace, shared]


def _strings(values: Iterable[str]) -> list[str]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidInput("capabilities", f"must be a list of tool names, not {type(values).__name__}")
    listed = list(values)
    if not all(isinstance(v, str) for v in listed):
        raise InvalidInput("capabilities", "must be a list of tool names (strings)")
    return listed

"""Run one recall as its plan declares it: the channels (`engine.recall.stages`), one fusion,
the factors, the adjusters (`engine.recall.plan`), and cards with their traces."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import takewhile
from operator import itemgetter

from engine.inputs import RecallRequest
from engine.models import Episode, GraphPath, GraphReads, MemoryCard, Trace, from_epoch
from engine.recall.channels import Seed, hub_degree
from engine.recall.digest_cards import asked_sessions, digest_cards
from engine.recall.diversity import mmr_order, without_repeats
from engine.recall.facts import fact_cards
from engine.recall.fixes import FixHits, FixSearch, Reached, fixes_first
from engine.recall.fusion import fused_with
from engine.recall.plan import CHANNELS, RecallPlan
from engine.recall.query_models import QueryModels
from engine.recall.reads import RecallReads
from engine.recall.rerank import (
    Candidate,
    Factors,
    RerankContext,
    factor_ceiling,
    reranker_for,
)
from engine.recall.sessions import spread_by_session
from engine.recall.stages import CHANNEL_STAGES, RecallContext, Replies, fuse_for, side_points
from engine.recall.time_query import searched_window
from engine.recall.updates import episode_states_a_change, mark_replaced_by_facts, mark_updates
from engine.settings import Settings
from engine.stores.base import RecallGraph
from engine.stores.vectors import VectorStore
from engine.text import count_tokens
from engine.time_text import named_times

__all__ = ["card_order", "run_recall", "within_budget"]

Ranked = tuple[float, Candidate, Factors]
# Two products of the same factors, multiplied in another order, differ in the last bits.
_ROUNDING = 1e-9


def run_recall(
    request: RecallRequest,
    *,
    now: float,
    graph: RecallGraph,
    vectors: VectorStore,
    facts: VectorStore,
    digests: VectorStore,
    models: QueryModels,
    settings: Settings,
) -> list[MemoryCard]:
    """The cards of one namespace for a request, best first, as DESIGN.md section 5 tells it:
    analyse the question, ask every channel of the plan, fuse them (replies join from the
    fused candidates under the same weights), read the live episodes that can still reach
    the top, weigh each by its factors, adjust the ranked list, and build cards with traces."""
    plan = RecallPlan.leaving_out(settings.recall_off)
    context = _context(request, now, graph, (vectors, facts, digests), models, settings, plan)
    for stage in (*CHANNEL_STAGES, FixSearch()):  # the fix channel walks from the direct channels' hits
        if plan.runs(stage.name):
            context.found[stage.name] = stage.run(context)
    if not context.hits("fix"):
        context.weights["fix"] = 0.0  # no fix reached: it leaves the other channels' scores alone
    context.fused = fuse_for(
        {name: context.found[name].found for name in plan.channels if name in context.found},
        context.weights, settings,
    )  # fmt: skip
    _read_ahead(context)
    if plan.runs("reply"):
        replies = Replies().run(context).found
        if replies:
            context.fused = fused_with(context.fused, fuse_for({"reply": replies}, context.weights, settings))
    shown, episodes, liftable = _ranked(context)
    return _cards(context, shown, episodes, liftable)


def _context(
    request: RecallRequest, now: float, graph: RecallGraph, stores: tuple[VectorStore, VectorStore, VectorStore],
    models: QueryModels, settings: Settings, plan: RecallPlan,
) -> RecallContext:  # fmt: skip
    """What every stage reads: the entities the query names, the hub threshold, the time it
    asks about and the window searched on its own, the sessions it asks about as wholes,
    and the weights of this question."""
    vectors, facts, digests = stores
    time = models.analysis.time
    weights = settings.weights.model_dump()
    for name in CHANNELS:
        if not plan.runs(name):
            weights[name] = 0.0  # left out: it weighs nothing in fusion's denominator either
    if not (models.analysis.sides and settings.side_candidates):
        # Fusion divides by the weights' sum: a channel that cannot run leaves scores alone.
        weights["side"] = 0.0
    if time.wants_latest or (time.broad and time.window is not None):
        weights["recency"] *= settings.time_intent_recency_boost
    namespace = request.namespace
    asked = _asked(request, now, graph, models, plan)
    if not (asked and plan.runs("session")):
        weights["session"] = 0.0
    if not models.analysis.about_work:
        weights["fix"] = 0.0
    # A question about a named time also searches that time alone: what happened then is a
    # candidate even where other times' turns match its words better.
    span = searched_window(time, settings.time_window_slack_days) if plan.applies("time_window") else None
    max_degree = hub_degree(vectors.count(namespace, exact=False), settings)
    named = graph.named_rows(namespace, models.analysis.entity_names, now, max_degree, settings.channel_candidates)
    return RecallContext(
        request=request, now=now, graph=graph, vectors=vectors, facts=facts, digests=digests, models=models,
        settings=settings, plan=plan, time=time, named=named, max_degree=max_degree, span=span,
        weights=weights, asked=asked,
        asked_digests={d.session_id: d for s in asked for d in graph.digests(namespace, s)},
        reads=RecallReads(graph, namespace, now),
    )  # fmt: skip


def _read_ahead(context: RecallContext) -> None:
    """Name to the store what the rest of the recall reads, for one statement where a read
    is a round trip (`engine.recall.reads`): the best fused candidates and the episodes on
    their graph paths, the next turns the reply channel looks at, and the facts and digests
    the question's points find. What the ranking reaches beyond them is read when it does."""
    if context.plan.applies("facts") and context.request.layer in (None, "semantic"):
        context.fact_points = side_points(context, context.facts)
    if context.plan.applies("digests") and context.request.layer in (None, "episodic") and (
        context.settings.digest_card_weight > 0
    ):
        context.digest_points = side_points(context, context.digests)
    fused, settings = context.fused, context.settings
    best = sorted(fused, key=lambda i: (-fused[i][0], i))
    ahead = best[: settings.read_ahead_candidates]
    reached = context.found["graph"].reached if "graph" in context.found else {}
    entity_paths = context.found["entity"].entity_paths if "entity" in context.found else {}
    paths = [reached[i].nodes for i in ahead if i in reached] + [entity_paths[i].nodes for i in ahead if i in entity_paths]
    on_paths = [node.id for nodes in paths for node in nodes if node.label == "Episode"]
    named_facts = {f.id for f in context.named.facts}
    asked = {d.id for d in context.asked_digests.values()}
    context.reads.read_ahead(
        [*ahead, *on_paths],
        best[: settings.reply_candidates] if context.plan.runs("reply") else [],
        [i for hits in context.fact_points.values() for i in (h.id for h in hits) if i not in named_facts],
        [i for hits in context.digest_points.values() for i in (h.id for h in hits) if i not in asked],
    )  # fmt: skip


def _asked(request: RecallRequest, now: float, graph: RecallGraph, models: QueryModels, plan: RecallPlan) -> list[str]:
    """The sessions the question asks about as wholes; read only for such a question."""
    analysis = models.analysis
    whole = analysis.session is not None or (analysis.time.broad and analysis.time.window is not None)
    if not whole or not (plan.runs("session") or plan.applies("digests")):
        return []
    return asked_sessions(graph.sessions(request.namespace, now), analysis, current=request.session_id)


def _ranked(context: RecallContext) -> tuple[list[Ranked], dict[str, Episode], frozenset[str]]:
    """The candidates that can reach the top, read live, weighed by their factors and
    adjusted (session spread, diversity); every episode read; and the best few that may
    replace a card they update (`engine.recall.updates`), the same whatever `top_k`."""
    request, settings, fused, plan, time = (
        context.request, context.settings, context.fused, context.plan, context.time)  # fmt: skip
    reranker = reranker_for(settings)
    rerank = RerankContext(
        now=context.now, role=request.role, capabilities=request.capabilities,
        query_names=context.models.analysis.entity_names, time=time,
    )  # fmt: skip

    def final_score(episode: Episode) -> float:
        return reranker.rerank([Candidate(episode, *fused[episode.id])], rerank)[0][0]

    # A question that gathers reaches across sessions; one about everything of a date keeps
    # to that date's sessions instead.
    gathering = plan.applies("session_spread") and context.models.analysis.gathers and not (
        time.broad and time.window is not None)  # fmt: skip
    diverse = plan.applies("mmr") and settings.mmr_lambda < 1
    # Only episodes that can still reach the top are read (a layer filter, MMR or a spread
    # across sessions may need the others).
    prune = request.layer is None and not diverse and not gathering
    # A newer memory that states a change takes the score of the one it replaces
    # (`engine.recall.updates`): it must be read even where it cannot reach the top alone.
    reach = _update_reach(context)
    episodes = _read_live(
        context.reads.live_episodes,
        {i: f for i, (f, _) in fused.items()},
        top_k=reach if prune else None, ceiling=factor_ceiling(rerank, settings),
        final=final_score,
    )  # fmt: skip
    # The fixes the fix channel reached are read and may be shown, to stand above their failures.
    fixes = [hit.id for hit in context.hits("fix") if hit.id in fused][: settings.fix_candidates]
    episodes.update((e.id, e) for e in context.reads.live_episodes([i for i in fixes if i not in episodes]))
    candidates = [
        Candidate(episodes[i], *fused[i])
        for i in fused
        if i in episodes and (request.layer is None or episodes[i].layer == request.layer)
    ]
    ranked = [
        (final, candidate, factors)
        for final, candidate, factors in reranker.rerank(candidates, rerank)
        if request.min_score is None or final >= request.min_score
    ]
    if gathering:
        ranked = spread_by_session(ranked, settings.session_repeat_factor)
    shown = _diverse(ranked, context.vectors, request.top_k, settings) if diverse else ranked[: request.top_k]
    liftable = frozenset[str]()
    if context.plan.applies("updates") and not diverse:  # MMR's choice of cards stands
        liftable = frozenset(c.episode.id for _, c, _ in ranked[: settings.update_candidates]
                             if episode_states_a_change(c.episode.id, c.episode.content))  # fmt: skip
        kept = {c.episode.id for _, c, _ in shown}
        shown += [r for r in ranked if r[1].episode.id in liftable and r[1].episode.id not in kept]
    if fixes and plan.applies("fixes"):
        kept = {c.episode.id for _, c, _ in shown}
        wanted = set(fixes)
        shown += [r for r in ranked if r[1].episode.id in wanted and r[1].episode.id not in kept]
    return shown, episodes, liftable


def _fixes_reached(context: RecallContext) -> dict[str, Reached]:
    """The fixes the fix channel reached, with what each fixed (none when it did not run)."""
    found = context.found.get("fix")
    return dict(found.reached_fixes) if isinstance(found, FixHits) else {}


def _update_reach(context: RecallContext) -> int:
    """How many of the best candidates are read: `top_k`, or `update_candidates` when more,
    so that an update among those can replace the card it updates."""
    top_k = context.request.top_k
    return max(top_k, context.settings.update_candidates) if context.plan.applies("updates") else top_k


def _cards(
    context: RecallContext, shown: list[Ranked], episodes: dict[str, Episode], liftable: frozenset[str]
) -> list[MemoryCard]:
    """Cards of the episodes shown, with their traces and graph paths, and of the active
    facts that answer (`engine.recall.facts`); the memories that update others marked."""
    request, now = context.request, context.now
    entity_paths = context.found["entity"].entity_paths if "entity" in context.found else {}
    reached = context.found["graph"].reached if "graph" in context.found else {}
    # A fix's walk from its error explains it best.
    fix_paths = context.found["fix"].entity_paths if "fix" in context.found else {}
    paths = {c.episode.id: fix_paths.get(c.episode.id) or _path(c.episode.id, reached, entity_paths) for _, c, _ in shown}
    named = _path_episodes(context.reads.live_episodes, paths.values(), episodes)
    graph_reads = context.graph.graph_reads(request.namespace) if shown else None
    top = [
        (final, candidate.episode,
         _trace(final, candidate, factors, now, paths[candidate.episode.id], named, context.time.window,
                graph_reads))
        for final, candidate, factors in shown
    ]  # fmt: skip
    wants_facts = context.plan.applies("facts") and request.layer in (None, "semantic")
    semantic, replaced = fact_cards(context) if wants_facts else ([], {})
    names = context.reads.entity_names([episode.id for _, episode, _ in top])
    episodic = [
        MemoryCard(
            id=episode.id,
            namespace=episode.namespace,
            content=episode.content,
            score=trace.final,
            occurred_at=from_epoch(episode.occurred_at),
            created_at=from_epoch(episode.created_at),
            session_id=episode.session_id,
            role=episode.role,
            kind=episode.kind,
            layer=episode.layer,
            importance=episode.importance,
            entities=names.get(episode.id, []),
            related_ids=list(dict.fromkeys(episode.related_ids + _related(trace.path, episode.id))),
            metadata=episode.metadata,
            trace=trace,
            times=named_times(episode.content, episode.occurred_at),
        )
        for _, episode, trace in top
    ]
    cards = episodic + semantic
    if context.plan.applies("updates"):
        cards = mark_replaced_by_facts(mark_updates(cards, liftable), replaced)
    if context.plan.applies("fixes"):
        cards = fixes_first(cards, _fixes_reached(context))
    if context.plan.applies("digests") and request.layer in (None, "episodic"):
        cards += digest_cards(context, max((card.score for card in cards), default=0.0))
    return without_repeats(sorted(cards, key=card_order), request.top_k)


def _read_live(
    read: Callable[[list[str]], list[Episode]],
    fused: dict[str, float],
    *,
    top_k: int | None,
    ceiling: float,
    final: Callable[[Episode], float],
) -> dict[str, Episode]:
    """The live episodes (`read` returns those of some ids) among the fused candidates that
    can still reach the top `top_k` (all of them when None), by id.

    Best fused first, in two reads (exact, not a heuristic): the best until `top_k` of them
    are live (a dead one lets the next in), whose `final` scores set a floor; then every
    other whose fused score times `ceiling` (no factor product is higher) still reaches the
    floor. Bounding both sides instead (the top_k-th fused score times the lowest product)
    read ~19 episodes a single-hop recall at 100k where this reads ~12 (~1.0 ms of
    statements and conversion against ~1.4 when none is held).
    """
    if top_k is None:
        return {e.id: e for e in read(list(fused))}
    best_first = sorted(fused, key=fused.__getitem__, reverse=True)
    episodes: dict[str, Episode] = {}
    position = 0
    while len(episodes) < top_k and position < len(best_first):
        batch = best_first[position : position + top_k - len(episodes)]
        position += len(batch)
        episodes.update((e.id, e) for e in read(batch))
    if position == len(best_first):
        return episodes
    floor = sorted(map(final, episodes.values()), reverse=True)[top_k - 1]
    # A final equal to the floor may still win on the tie-break: reach it, rounding aside.
    reaches = floor * (1 - _ROUNDING)
    rest = list(takewhile(lambda i: fused[i] * ceiling >= reaches, best_first[position:]))
    if rest:
        episodes.update((e.id, e) for e in read(rest))
    return episodes


def _path_episodes(
    live: Callable[[list[str]], list[Episode]], paths: Iterable[GraphPath | None], episodes: dict[str, Episode]
) -> dict[str, Episode]:
    """`episodes` and the live ones on the paths shown that recall did not read (a seed of
    graph expansion that could not reach the top itself), to name them in the traces."""
    wanted = {n.id for path in paths if path is not None for n in path.nodes if n.label == "Episode"}
    missing = sorted(wanted - episodes.keys())
    if not missing:
        return episodes
    return episodes | {e.id: e for e in live(missing)}


def _trace(
    final: float,
    candidate: Candidate,
    factors: Factors,
    now: float,
    path: GraphPath | None,
    episodes: dict[str, Episode],
    window: tuple[float, float] | None,
    graph_reads: GraphReads | None,
) -> Trace:
    """Why a card was recalled: its channel hits, its graph path and every factor."""
    episode = candidate.episode
    return Trace(
        channels=[hit.channel_hit() for hit in sorted(candidate.hits, key=itemgetter(1))],
        path=_named(path, episodes),
        fused=round(candidate.fused, 6),
        decay=round(factors.decay, 6),
        age_days=round(max(0.0, now - episode.occurred_at) / 86_400.0, 3),
        importance=episode.importance,
        role_factor=factors.role,
        capability_factor=factors.capability,
        author_factor=factors.author,
        time_factor=round(factors.time, 6),
        session_factor=round(factors.session, 6),
        final=round(final, 6),
        time_window=None if window is None else (from_epoch(window[0]), from_epoch(window[1])),
        graph_reads=graph_reads,
    )



def _diverse(ranked: list[Ranked], vectors: VectorStore, count: int, settings: Settings) -> list[Ranked]:
    """The `count` best, or with mmr_lambda < 1 the MMR picks among the best mmr_candidates."""
    if settings.mmr_lambda >= 1 or len(ranked) <= 1:
        return ranked[:count]
    pool = ranked[: max(count, settings.mmr_candidates)]
    ids = [candidate.episode.id for _, candidate, _ in pool]
    picks = mmr_order(
        [(i, final) for i, (final, _, _) in zip(ids, pool, strict=True)],
        vectors.dense(ids),
        lam=settings.mmr_lambda,
        count=count,
    )
    by_id = dict(zip(ids, pool, strict=True))
    return [by_id[i] for i in picks]


def within_budget(cards: Sequence[MemoryCard], max_tokens: int | None) -> list[MemoryCard]:
    """Cards in order while their content fits the budget; one too long is skipped."""
    if max_tokens is None:
        return list(cards)
    kept, used = [], 0
    for card in cards:
        size = count_tokens(card.content)
        if used + size <= max_tokens:
            kept.append(card)
            used += size
    return kept


def card_order(card: MemoryCard) -> tuple[float, float, str]:
    """Best score first; ties by the newer memory, then by id, so equal runs give equal lists."""
    return (-card.score, -card.occurred_at.timestamp(), card.id)


def _path(episode_id: str, reached: Mapping[str, Seed], entity_paths: Mapping[str, GraphPath]) -> GraphPath | None:
    """How the graph linked an episode to the query: a graph path explains more than an
    entity's. Made only for the cards shown: expansion reaches many more."""
    origin = reached.get(episode_id)
    return origin.onto(episode_id).path() if origin is not None else entity_paths.get(episode_id)


def _named(path: GraphPath | None, episodes: dict[str, Episode]) -> GraphPath | None:
    """Give the path's episode nodes their summaries, so a trace reads without lookups."""
    if path is None:
        return None
    nodes = [
        node.model_copy(update={"name": episodes[node.id].summary})
        if node.label == "Episode" and node.id in episodes
        else node
        for node in path.nodes
    ]
    return path.model_copy(update={"nodes": nodes})


def _related(path: GraphPath | None, own_id: str) -> list[str]:
    """Episodes on the graph path that led to a card: its citations besides itself."""
    if path is None:
        return []
    return [n.id for n in path.nodes if n.label == "Episode" and n.id != own_id]

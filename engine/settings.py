"""Settings: every tunable of hindsight, read from `HINDSIGHT_*` environment variables.

Each constant that changes behaviour lives here with a comment on what it trades. Pass a
`Settings` to `Memory.open`; nothing reads the environment after that.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["ChannelWeights", "ImportanceWeights", "Settings", "default_model_cache", "settings_at"]


def _env(name: str) -> AliasChoices:
    """A field read from `name` (NEO4J_URI) or `HINDSIGHT_<name>`, or given by field name."""
    return AliasChoices(name.lower(), name, f"HINDSIGHT_{name}")


def default_model_cache() -> Path:
    """Where exported models are cached unless set: hindsight/ in the user's cache directory
    (XDG_CACHE_HOME, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hindsight"


class ChannelWeights(BaseSettings):
    """How much each recall channel counts in fusion (relative; they need not sum to 1)."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_WEIGHT_", frozen=True)

    # Dense similarity finds paraphrases but also near-topic noise. LoCoMo (10 conversations,
    # R@5, with the fusion below): 0.5 gives 70.1, 0.8 gives 66.2 (all-MiniLM alone: 32.7).
    vector: float = Field(0.5, ge=0)
    # BM25 over keyword keys with session context: exact names, codes and numbers that
    # embeddings blur. The strongest single channel on LoCoMo (R@5 ~66 alone).
    keyword: float = Field(1.0, ge=0)
    # Episodes that mention an entity named in the query: precise, but every mention scores
    # alike. LoCoMo R@5: 0 gives 70.3, 0.2 gives 70.1, 0.3 (without graph) 69.7.
    entity: float = Field(0.2, ge=0)
    # Graph expansion finds answers that share no words with the query (scaled by its
    # ceiling, `graph_absolute`). LoCoMo R@5: 0.3 gives 70.1 (multi-hop 35.8), 0.6 gives 69.9;
    # scaled by its best hit instead, 1.0 gave 60.2: loose associations flood the top.
    graph: float = Field(0.3, ge=0)
    # The latest episodes of the session or namespace; raised when the query asks about the
    # latest. Kept low: on its own it ranks the newest chatter above the relevant answer.
    recency: float = Field(0.1, ge=0)


class ImportanceWeights(BaseSettings):
    """How much each signal adds to an episode's importance (engine/ingest/importance.py)."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_IMPORTANCE_", frozen=True)

    # A plain statement with no signal: above the default threshold (0.3), so it is kept.
    base: float = Field(0.4, ge=0, le=1)
    # Each entity the namespace has not seen before (up to three): new information.
    new_entity: float = Field(0.08, ge=0, le=1)
    number: float = Field(0.08, ge=0, le=1)
    date: float = Field(0.08, ge=0, le=1)
    # Decisions and todos are what agents are most often asked about later.
    decision: float = Field(0.25, ge=0, le=1)
    todo: float = Field(0.15, ge=0, le=1)
    negation: float = Field(0.05, ge=0, le=1)
    # "actually", "改成": a correction overrides something remembered earlier.
    correction: float = Field(0.15, ge=0, le=1)
    # Subtracted for three tokens or fewer: "hmm", "let me see".
    short: float = Field(0.15, ge=0, le=1)
    # The whole score of a bare acknowledgement ("ok thanks", "好的").
    acknowledgement: float = Field(0.05, ge=0, le=1)


class Settings(BaseSettings):
    """All of hindsight's configuration. Environment prefix `HINDSIGHT_`."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_", frozen=True)

    # -- where and what ---------------------------------------------------------------------
    # Where the embedded stores, the archive and the audit log live (the archive and the audit
    # log also with the neo4j backend).
    data_dir: Path = Path("./hindsight-data")
    # embedded: Ladybug + Qdrant Edge under data_dir, one process, nothing to run beside it.
    # neo4j: Neo4j 5 (NEO4J_*) + a Qdrant server (QDRANT_*), for many processes and scale-out.
    backend: Literal["embedded", "neo4j"] = "embedded"
    # Where the vectors live. auto: Qdrant Edge under data_dir with the embedded backend, a
    # Qdrant server with neo4j (QDRANT_URL; unset: qdrant-client's local mode). edge: Qdrant
    # Edge with either graph (one process; how bench.speed compares the two graphs). qdrant:
    # a Qdrant server (or local mode) with either graph.
    vector_store: Literal["auto", "edge", "qdrant"] = "auto"
    # minilm: all-MiniLM-L6-v2, 384-d, English only, on ONNX Runtime (exported once from the
    # packaged torch weights, see model_cache_dir).
    embedder: Literal["minilm"] = "minilm"
    # The arithmetic of batches. bfloat16 runs a batch through torch in bf16, traced once a
    # process so that it runs without the GIL: on a CPU with AVX-512 BF16 that embeds ~1.7x
    # faster than float32, and its vectors match float32's to a cosine of 0.9999, so stored
    # vectors need no rebuild. Without that CPU support bf16 would be emulated and slow: auto
    # picks it only where the CPU has it. A query, and a float32 batch, run on ONNX Runtime.
    embedder_precision: Literal["auto", "float32", "bfloat16"] = "auto"
    # Cores a batch computes on, ONNX Runtime's in float32 and torch's in bf16; 0: all. One,
    # because a batch always has other work beside it: store_many embeds its parts on two
    # threads at once, and runs spaCy's NER meanwhile, so more cores gained nothing on two.
    # torch's count is process-wide, set by the first bf16 batch.
    embedder_threads: int = Field(1, ge=0, le=256)
    # Cores ONNX Runtime computes one text on (a recall's query, a single store); 0: all. On
    # 2 AVX-512 cores a query embeds in ~2.8 ms on both against ~4.5 ms on one, and recall
    # at 10k took 7.0-7.1 ms at p50 against 8.7-9.5 on one core (p95 9.7-10.3 against
    # 10.5-12.4; same process, in turn). Taking every core, the query embeds after recall's
    # reads that need only its words (~1 ms); leaving one free, beside them. Its threads
    # stop spinning when a run returns and back off while it runs: left spinning, as ONNX
    # Runtime does by default, they took the cores from the work after the embedding (on an
    # AVX2 machine a second core then gained nothing). A second session when this differs
    # from embedder_threads, loaded at the first float32 batch: a second copy of the model
    # in memory (the export is ~90 MB on disk; not measured in memory).
    embedder_query_threads: int = Field(0, ge=0, le=256)
    # Where the ONNX export of the embedding model is cached (~90 MB, keyed by the model
    # package's version): the first process to embed exports it (~12 s with loading torch on
    # 2 AVX2 cores), later ones load it (~0.4 s).
    # Unwritable: each process exports it again, in memory. Unset: hindsight/ under
    # XDG_CACHE_HOME, else ~/.cache/hindsight (default_model_cache()).
    model_cache_dir: Path | None = None

    # Threads numpy's BLAS (OpenBLAS) may use, set process-wide when a Memory opens; 0
    # leaves numpy as the host application set it. hindsight's numpy work is small products
    # (NER's models, similarities), which OpenBLAS would split over every core; its threads
    # then spin between products against the embedder's: store_many's NER took 18 s for 5k
    # episodes on 2 cores with two threads, 12 s with one.
    numpy_blas_threads: int = Field(1, ge=0, le=256)
    # Worker threads the embedded graph runs a statement on; 0: one per core. Recall's
    # statements are small and many: with one worker each costs less to hand off and wake
    # (recall's graph reads 31 -> 24 ms at 10k episodes on 2 cores), and the other core is
    # left to the query's embedding.
    graph_threads: int = Field(1, ge=0, le=256)
    # Threads the embedded vector store searches on; 0: one per core. Qdrant Edge's own
    # default is four a core, to overlap reads from disk; hindsight's shards are read from memory,
    # and a recall asks the store four times (sparse, latest, count, dense), each call waking
    # more of the pool, whose threads then took the cores from the query's embedding and the
    # reads after it. One thread, on 2 cores: those four calls 1.05-1.08 ms against 1.28-1.36
    # with Qdrant's default at 35k points (HNSW), 1.09-1.19 against 1.28-1.45 at 6k; recall's
    # p50 at 10k 1.64x a bare search on the default pool, in two runs, against 1.94 and 1.76
    # on the default itself. Every call holds the store's lock: concurrent recalls never
    # searched in parallel anyway.
    vector_search_threads: int = Field(1, ge=0, le=256)
    # The embedded graph keeps the MENTIONS edges of the namespaces it recalls in process, so
    # that graph expansion reads dicts, not statements (at 10k episodes: 8.3 -> 4 statements
    # and 17 -> 6 ms of graph reads per recall; recall p50 43 -> 25 ms in `make bench`), and
    # its episodes' content hashes, so that a store's duplicate check does not scan the
    # namespace (Ladybug indexes only ids: 512 hashes took 115 ms at 35k episodes, once a
    # batch, so store_many grew quadratic).
    # This many episodes at most, across namespaces (least recently used dropped first;
    # a larger namespace is left to the statements); 0 turns it off. Costs memory (~0.9 KB
    # an episode of two mentions: ~450 MB at the default) and one read of a namespace's
    # edges at its first recall or store after opening, or after a write other than store,
    # forget or restore (0.05 s for 6k episodes; 0.6-1.6 s for 35k with 70k edges).
    # `hindsight` commands, a process each, run without it, except `serve`.
    graph_index_episodes: int = Field(500_000, ge=0)
    # The embedded graph also keeps the episodes recall read lately, and those just stored,
    # so that the next recall asking for them reads no statement (a recall that holds none
    # reads ~12 at 100k: ~1 ms, and 2-9 ms at the tail in a process that has just stored
    # 100k). This many at most (least recently read or stored dropped first); 0 turns it
    # off. Costs memory (~5 KB a short episode: up to ~250 MB at the default, once that
    # many are read or stored); 10,000 held only the last 10k of the 35.5k episodes the
    # 100k bench stores, and its first recalls took 7.3 ms at p50 against 6.7 with all of
    # them held (peak RSS 2,424 -> 2,494 MB). A write other than store, forget, restore, a
    # duplicate's touch or access marks empties it.
    graph_cache_episodes: int = Field(50_000, ge=0)

    # -- production backends (HINDSIGHT_BACKEND=neo4j); the usual variable names work ----------
    # The Neo4j server (neo4j:// routes across a cluster, bolt:// talks to one server), its
    # user, password and database.
    neo4j_uri: str = Field("bolt://localhost:7687", validation_alias=_env("NEO4J_URI"))
    neo4j_user: str = Field("neo4j", validation_alias=_env("NEO4J_USER"))
    neo4j_password: SecretStr = Field(SecretStr(""), validation_alias=_env("NEO4J_PASSWORD"))
    neo4j_database: str = Field("neo4j", validation_alias=_env("NEO4J_DATABASE"))
    # Unset: qdrant-client's local mode under data_dir, for development on one machine only.
    qdrant_url: str | None = Field(None, validation_alias=_env("QDRANT_URL"))
    # The Qdrant server's API key, when it has one.
    qdrant_api_key: SecretStr | None = Field(None, validation_alias=_env("QDRANT_API_KEY"))
    # Collections are named <prefix>-<model>-<dimension>: several deployments can share one
    # Qdrant, and a new embedding model starts a new collection instead of mixing vectors.
    qdrant_collection_prefix: str = Field("hindsight", pattern=r"^[A-Za-z0-9_-]+$")
    # Attempts to reach Neo4j and Qdrant on start, with exponential backoff (at most 8 s
    # apart): a server started beside hindsight (docker compose) takes a while to be ready.
    connect_attempts: int = Field(6, ge=1, le=100)

    # -- input limits -------------------------------------------------------------------------
    # Longer content is rejected rather than silently cut: a memory must be what was said.
    max_content_chars: int = Field(100_000, gt=0)
    # Metadata is stored as JSON on the episode node; large blobs belong elsewhere.
    max_metadata_bytes: int = Field(16_384, gt=0)
    # store_many writes this many episodes per graph transaction and embedding batch: larger
    # batches amortise model and transaction overhead, smaller ones lose less on a failure.
    store_batch_size: int = Field(64, gt=0, le=10_000)
    # A store batch is embedded in parts of this many texts, taken in turn by the model thread
    # and by the writing thread once its NER is done (so both cores work to the end). Smaller
    # parts leave less of one core idle at the end of a batch; larger ones pad less and hand
    # off less (per text, 8 to 32 cost the same on 2 AVX2 cores).
    embed_part_size: int = Field(16, gt=0, le=10_000)
    # A store_many that stores at least this many episodes builds the vector index (HNSW) at
    # its end (Qdrant Edge has no background indexer): dense search at 35k points drops from
    # 5 ms (exhaustive) to 1 ms, for ~11 s of indexing, during which searches wait. Lower
    # indexes sooner and more often; single stores never index (call Memory.optimize()).
    index_after_episodes: int = Field(2_000, gt=0)
    # Vectors (in KB; 384 dimensions take 1.5 KB a point) above which the embedded store
    # builds and searches an HNSW graph, for a segment or for the points a namespace filter
    # leaves; below, it scans them, exactly. Qdrant's own 10 MB kept a store of 6k episodes
    # exhaustive: a filtered search for 50 took 1.4 ms against 0.76 on the graph, with 99.98%
    # of the same top 50 and the same top 5, and recall p50 in the bench's flow went from
    # 9.7-12.3 to 7.8-10.1 ms; the build adds 0.6-1.0 s to store_many's end (1.6% of it at
    # 10k). Lower indexes smaller namespaces, higher keeps more of them exact.
    vector_index_threshold_kb: int = Field(1_000, gt=0)

    # -- PII redaction ------------------------------------------------------------------------
    # Phone numbers, e-mail addresses, Chinese ID numbers and bank cards are replaced by typed
    # placeholders before anything is stored or embedded. Off only for data known to be clean:
    # a redacted value can never be recalled, an unredacted one can never be unseen.
    redact_pii: bool = True
    # Extra patterns, placeholder type -> regular expression, e.g. {"EMPLOYEE_ID": "EMP-\\d{6}"}
    # (as JSON in HINDSIGHT_PII_PATTERNS). Checked when the memory opens.
    pii_patterns: dict[str, str] = Field(default_factory=dict)

    # -- importance ---------------------------------------------------------------------------
    importance: ImportanceWeights = Field(default_factory=ImportanceWeights)
    # Scored importance below this keeps an episode in working memory only (`skipped:
    # low_importance`); explicit importance is never second-guessed. A support agent, whose
    # users repeat themselves, does well higher (0.4); a coding agent, whose terse tool
    # results matter, lower (0.2). 0 stores everything.
    importance_threshold: float = Field(0.3, ge=0, le=1)

    # -- recall -------------------------------------------------------------------------------
    # Hits taken from each channel before fusion: more finds more, costs latency.
    channel_candidates: int = Field(50, gt=0, le=1000)
    weights: ChannelWeights = Field(default_factory=ChannelWeights)
    # Reciprocal rank fusion constant: larger flattens the advantage of the first ranks.
    rrf_k: int = Field(60, gt=0)
    # Share of rank (RRF) versus normalised raw score in fusion: rank is robust to score
    # scales, scores keep how much better the top hit was. LoCoMo R@5 (minmax): 0 gives 68.2,
    # 0.2 gives 68.2 (R@10 +0.6); with "max" scaling 0.5 gave 59.7 and 0 gave 62.5.
    rrf_share: float = Field(0.0, ge=0, le=1)
    # How a channel's raw scores are scaled before they are added: "max" divides by the best
    # hit; "minmax" also subtracts the weakest, so a channel whose hits all score alike
    # (dense cosine: 0.3-0.6 for everything) cannot lift its whole list. LoCoMo R@5: 68.2
    # minmax vs 62.5 max.
    fusion_normalization: Literal["max", "minmax"] = "minmax"
    # ...but only for a channel that returned at least this many hits: the weakest of two
    # is no baseline, and minmax would turn a hair's difference into all or nothing.
    minmax_min_hits: int = Field(20, ge=2, le=1000)
    # Graph expansion scores are absolute (seed weight x specificity x hop decay): scaled by
    # their ceiling rather than by the best graph hit, a loose association stays weak.
    graph_absolute: bool = True
    # Time decay: a memory loses half its weight every half_life days since it happened...
    decay_half_life_days: float = Field(30.0, gt=0)
    # ...but never below this floor, so an old decisive memory can still win on relevance.
    # Decay is a prior, not evidence: at 0.35 it cost LoCoMo R@5 about 20 points (questions
    # about months-old sessions); at 0.9 it still orders equal hits newest first.
    decay_floor: float = Field(0.9, ge=0, le=1)
    # How much importance moves the score: final x (1 - w + w x importance).
    importance_weight: float = Field(0.3, ge=0, le=1)
    # Graph expansion: seeds taken from the other channels, hops, and the loss per hop.
    graph_seeds: int = Field(5, ge=0, le=100)
    graph_max_hops: int = Field(2, ge=1, le=2)
    graph_hop_decay: float = Field(0.5, gt=0, le=1)
    # Entities mentioned by more episodes than this are hubs (the user, the agent): expanding
    # through them reaches everything and means nothing.
    graph_max_entity_degree: int = Field(200, gt=0)
    # ...and so are entities mentioned by more than this share of the namespace's episodes
    # (a conversation's speakers, the user): the entity channel and graph expansion skip them.
    # On LoCoMo the speakers are named in every turn and otherwise flood the entity channel.
    entity_hub_share: float = Field(0.05, gt=0, le=1)
    # Below this many mentions an entity is never a hub, however small the namespace.
    entity_hub_min_degree: int = Field(20, gt=0)
    # How many of the latest episodes the recency channel offers: a handful, so "the latest"
    # helps the newest relevant memory without flooding fusion with unrelated ones.
    recency_candidates: int = Field(10, gt=0, le=1000)
    # Recall multiplies the recency weight by this when the query asks about time
    # ("last time", "yesterday", "上次").
    time_intent_recency_boost: float = Field(4.0, ge=1)

    # -- working memory -----------------------------------------------------------------------
    # Items per session window: more keeps more context in process, costs memory per session.
    working_capacity: int = Field(20, gt=0, le=10_000)
    # Weight multiplier for items flagged `metadata={"key": true}` (tool results a task needs).
    working_key_weight: float = Field(2.0, ge=1)
    # An item leaving the window (overflow, drain, close) is promoted to episodic memory when
    # its weight reaches this; lower promotes more chatter, higher loses more context.
    working_promote_min: float = Field(0.5, ge=0)
    # Working items below this cosine to the query stay out of recall.
    working_min_similarity: float = Field(0.3, ge=-1, le=1)

    # -- chunking, dedup, resolution, supersession -------------------------------------------
    # Content over chunk_max_tokens is also stored as chunks of chunk_min..chunk_max tokens:
    # smaller chunks pinpoint the answering sentence, larger ones keep its context.
    chunk_max_tokens: int = Field(200, ge=10)
    chunk_min_tokens: int = Field(50, ge=1)
    # A new episode at or above this cosine to a stored one of the namespace, stating the same
    # facts (engine/ingest/dedup.py), is a duplicate: the stored one is seen again instead.
    dedup_similarity: float = Field(0.92, ge=0, le=1)
    # Off stores every repeat as an episode of its own (a log, not a memory).
    dedup: bool = True
    # A new entity name at or above this cosine to one stored entity of the same type, with no
    # conflicting number or word, becomes its alias. "Postgres"/"PostgreSQL" score 0.90,
    # "Alice"/"Alice Chen" 0.78 (kept apart).
    entity_merge_similarity: float = Field(0.85, ge=0, le=1)
    # A new decision sharing a subject with an active one supersedes it at or above this
    # cosine: "use Postgres for Atlas" / "use MySQL for Atlas" score 0.74, "use Postgres for
    # Atlas" / "Atlas launches in May" 0.59.
    supersede_similarity: float = Field(0.65, ge=0, le=1)

    # -- optional LLM extraction ---------------------------------------------------------------
    # An OpenAI-compatible chat completions endpoint (".../v1"). When set, it extracts
    # entities, decisions, todos and importance; the rules stay the fallback when it fails.
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    # Seconds per request; a slow endpoint falls back to the rules rather than stall a store.
    llm_timeout: float = Field(20.0, gt=0)

    # -- forgetting ----------------------------------------------------------------------------
    # Default time to live per kind, in days ({"tool_call": 30}); kinds not named never expire.
    ttl_days: dict[str, float] = Field(default_factory=dict)
    # Maintenance archives episodes below this importance not accessed (nor seen again) for
    # archive_after_days: the hot stores stay small, nothing is lost (restorable).
    archive_max_importance: float = Field(0.4, ge=0, le=1)
    archive_after_days: float = Field(30.0, gt=0)
    # Recall records what it returned (last_accessed_at, access_count), so that "not
    # accessed for N days" means what it says. Off saves that write.
    track_access: bool = True
    # The embedded graph writes those marks this many episodes at a time, then checkpoints
    # (and writes them before anything reads them, and on close). Each write leaves version
    # records that slow later reads until a checkpoint, which Ladybug alone makes only every
    # 16 MB of log: a write per recall made the reads of the next 300 recalls 2x slower.
    # Larger batches write less often but in longer pauses (a batch of 1024 and its checkpoint
    # take ~65 ms); a crash loses at most this many marks. 1 writes each recall's at once
    # and never checkpoints. Neo4j always writes at once.
    access_batch: int = Field(1024, ge=1)
    # Live episodes per namespace before maintenance archives the lowest by
    # importance x (1 - w + w x recency); w is low so rare but important memories survive.
    episodic_capacity: int | None = Field(None, gt=0)
    capacity_recency_weight: float = Field(0.2, ge=0, le=1)

    # -- reflection ----------------------------------------------------------------------------
    # `hindsight serve` reflects (and runs maintenance) every this many seconds; 0 disables.
    reflection_interval: float = Field(21600.0, ge=0)
    # Episodes read per run, and seconds a run may spend: a run is bounded, the next goes on.
    reflection_batch_size: int = Field(100, gt=0, le=10_000)
    reflection_time_budget: float = Field(30.0, gt=0)
    # Cosine at which two episodes are one topic; paraphrases inside a cluster support one fact.
    reflection_cluster_similarity: float = Field(0.85, ge=0, le=1)
    # A relation becomes a fact once this many distinct episodes state it (decisions, stated
    # preferences and fixes count from one): higher is surer, lower learns faster.
    fact_min_support: int = Field(2, ge=1)
    # Confidence = (1 - e^(-support/scale)) x recency x agreement: scale 2 gives 0.39 at one
    # episode, 0.63 at two, 0.86 at four.
    fact_support_scale: float = Field(2.0, gt=0)
    # Facts lose weight with the age of their newest evidence, down to the floor.
    fact_half_life_days: float = Field(90.0, gt=0)
    fact_recency_floor: float = Field(0.5, ge=0, le=1)
    # Fact cards in recall: their confidence times this, comparable to fused episode scores.
    fact_card_weight: float = Field(0.6, ge=0, le=2)

    # -- role and capability awareness -------------------------------------------------------
    # A memory written by or for the asking role is multiplied by this: higher keeps an
    # agent's own findings on top, lower lets other roles' memories compete.
    role_boost: float = Field(1.25, ge=1, le=4)
    # A tool-call memory about a tool the caller lacks is multiplied by this: it shows what
    # worked elsewhere, but the caller cannot repeat it. 1 disables the penalty.
    missing_capability_factor: float = Field(0.7, gt=0, le=1)

    # -- reranking (engine/recall/rerank.py) ---------------------------------------------------
    # Which reranker scores the fused candidates: "factors" multiplies the fused score by
    # decay, importance, role, capability, author and time factors (offline, no model).
    reranker: Literal["factors"] = "factors"
    # A memory whose author (its role) the query names is multiplied by this: "what did
    # Caroline say" prefers Caroline's turns. LoCoMo R@5 multi-hop: 32.1 at 1, 35.9 at 1.4;
    # the price is paid by questions about what the *other* speaker did (adversarial 76.5 ->
    # 71.6); overall flat (68.3 -> 68.5 at 1.1).
    author_boost: float = Field(1.4, ge=1, le=4)
    # When the query asks "when", a memory that carries a time ("last Friday", "2019") is
    # multiplied by this: it is the one that can answer. LoCoMo temporal R@5 66.0 at 1 (with
    # the other factors off), 72-74 at 1.2-1.35.
    time_answer_boost: float = Field(1.2, ge=1, le=4)
    # A memory that happened within a date the query names ("on 4 May", "in 2022") is
    # multiplied by this; the window reaches `time_window_slack_days` past the date, since
    # people tell of a day after it.
    time_window_boost: float = Field(1.5, ge=1, le=4)
    time_window_slack_days: float = Field(7.0, ge=0, le=365)
    # Maximal marginal relevance (engine/recall/diversity.py): below 1, the returned cards
    # trade score for saying different things, picked among the best `mmr_candidates`
    # (one read of their vectors). 1 is plain score order. LoCoMo (top 25 asked): R@5/R@10
    # unchanged at 0.6 and 0.8, R@25 -0.2 at 0.6, so it is off by default.
    mmr_lambda: float = Field(1.0, ge=0, le=1)
    mmr_candidates: int = Field(50, gt=0, le=1000)

    # -- namespaces and analyst queries -------------------------------------------------------
    # Readable from every namespace, written only when a caller names it explicitly. Reading it
    # costs one more recall pass when it holds anything.
    shared_namespace: str = "shared"
    # Analyst Cypher (query_graph): rows returned at most, and a time limit so a careless
    # query cannot hold the single graph connection.
    cypher_max_rows: int = Field(1000, gt=0, le=100_000)
    cypher_timeout_ms: int = Field(10_000, gt=0)
    # How many of an entity's latest episodes and decisions `entity()` returns, and how many
    # episodes sharing an entity `explain()` lists as neighbours.
    profile_episodes: int = Field(10, gt=0, le=200)
    explain_neighbours: int = Field(10, gt=0, le=200)

    # -- server (hindsight serve) -------------------------------------------------------------
    # Where `hindsight serve` listens: 127.0.0.1 keeps it local; 0.0.0.0 in a container.
    host: str = "127.0.0.1"
    port: int = Field(8765, gt=0, lt=65536)
    # When set, every HTTP request except /health must carry `Authorization: Bearer <token>`.
    api_token: SecretStr | None = None

    # -- keyword channel (BM25 on sparse vectors) --------------------------------------------
    # Term-frequency saturation: higher lets repeated words count longer.
    bm25_k1: float = Field(0.9, gt=0)
    # Length normalisation: 1 punishes long episodes fully, 0 not at all. Keys with session
    # context are long by construction, so it is mild; LoCoMo R@5 +0.6 at (0.9, 0.4) over
    # (1.2, 0.75).
    bm25_b: float = Field(0.4, ge=0, le=1)
    # Typical keyword-key length in terms, for length normalisation: a chat turn has ~14
    # terms, ~40 with its session context.
    bm25_avg_len: float = Field(40.0, gt=0)
    # Session context in keyword keys (engine/keyword_keys.py): a neighbour turn's terms count
    # weight ** distance, up to `turns` away (at most 3, the reach of the graph query). 0 turns
    # indexes each episode alone.
    keyword_context_weight: float = Field(0.5, ge=0, le=1)
    keyword_context_turns: int = Field(3, ge=0, le=3)

    @field_validator("api_token", "qdrant_api_key", "llm_api_key", mode="before")
    @classmethod
    def _blank_secret_is_none(cls, value: object) -> object:
        # docker compose passes an unset variable as "": that means no token, not an empty one.
        return None if value == "" else value

    @field_validator("model_cache_dir", mode="before")
    @classmethod
    def _cache_dir(cls, value: object) -> object:
        if value in ("", None):
            return None  # as .env.example leaves it: the default place
        return Path(str(value)).expanduser()  # ~/models works as in a shell

    @property
    def graph_path(self) -> Path:
        return self.data_dir / "graph"

    @property
    def vectors_dir(self) -> Path:
        return self.data_dir / "vectors"


def settings_at(path: str | Path | None, settings: Settings | None) -> Settings:
    """`settings` (from the environment when None), with `path` as the data directory when
    given: how `Memory.open` and the doctor's rebuild read their two arguments."""
    resolved = settings or Settings()
    return resolved if path is None else resolved.model_copy(update={"data_dir": Path(path)})

"""Settings: every tunable of hindsight, read from `HINDSIGHT_*` environment variables.

Each constant that changes behaviour lives here with a comment on what it trades. Pass a
`Settings` to `Memory.open`; nothing reads the environment after that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["ChannelWeights", "Settings"]


class ChannelWeights(BaseSettings):
    """How much each recall channel counts in fusion (relative; they need not sum to 1)."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_WEIGHT_", frozen=True)

    # Dense similarity finds paraphrases but also near-topic noise.
    vector: float = Field(1.0, ge=0)
    # BM25 finds exact names, codes and numbers that embeddings blur.
    keyword: float = Field(1.0, ge=0)
    # Episodes that mention an entity named in the query: precise, but blind to paraphrase.
    entity: float = Field(0.8, ge=0)
    # Graph expansion finds answers that share no words with the query; higher weight brings
    # more multi-hop answers and more loosely related ones.
    graph: float = Field(0.5, ge=0)
    # The latest episodes of the session or namespace; raised when the query asks about time.
    # Kept low: on its own it ranks the newest chatter above the relevant answer.
    recency: float = Field(0.1, ge=0)


class Settings(BaseSettings):
    """All of hindsight's configuration. Environment prefix `HINDSIGHT_`."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_", frozen=True)

    # -- where and what ---------------------------------------------------------------------
    data_dir: Path = Path("./hindsight-data")
    # Only the embedded backend (Ladybug + Qdrant Edge) exists yet; neo4j comes with its issue.
    backend: Literal["embedded"] = "embedded"
    # minilm: all-MiniLM-L6-v2, 384-d, English only, ~250 sentences/s on 2 cores.
    embedder: Literal["minilm"] = "minilm"

    # -- input limits -------------------------------------------------------------------------
    # Longer content is rejected rather than silently cut: a memory must be what was said.
    max_content_chars: int = Field(100_000, gt=0)
    # Metadata is stored as JSON on the episode node; large blobs belong elsewhere.
    max_metadata_bytes: int = Field(16_384, gt=0)
    # store_many writes this many episodes per graph transaction and embedding batch: larger
    # batches amortise model and transaction overhead, smaller ones lose less on a failure.
    store_batch_size: int = Field(64, gt=0, le=10_000)

    # -- PII redaction ------------------------------------------------------------------------
    # Phone numbers, e-mail addresses, Chinese ID numbers and bank cards are replaced by typed
    # placeholders before anything is stored or embedded. Off only for data known to be clean:
    # a redacted value can never be recalled, an unredacted one can never be unseen.
    redact_pii: bool = True
    # Extra patterns, placeholder type -> regular expression, e.g. {"EMPLOYEE_ID": "EMP-\\d{6}"}
    # (as JSON in HINDSIGHT_PII_PATTERNS). Checked when the memory opens.
    pii_patterns: dict[str, str] = Field(default_factory=dict)

    # -- importance (first cut; the ingest issue refines it) ----------------------------------
    # Score of an episode with no signal either way; explicit importance overrides it.
    default_importance: float = Field(0.5, ge=0, le=1)

    # -- recall -------------------------------------------------------------------------------
    # Hits taken from each channel before fusion: more finds more, costs latency.
    channel_candidates: int = Field(50, gt=0, le=1000)
    weights: ChannelWeights = Field(default_factory=ChannelWeights)
    # Reciprocal rank fusion constant: larger flattens the advantage of the first ranks.
    rrf_k: int = Field(60, gt=0)
    # Share of rank (RRF) versus raw channel score in fusion: rank is robust to score scales,
    # raw scores keep how confident a channel was.
    rrf_share: float = Field(0.5, ge=0, le=1)
    # Time decay: a memory loses half its weight every half_life days since it happened...
    decay_half_life_days: float = Field(30.0, gt=0)
    # ...but never below this floor, so an old decisive memory can still win on relevance.
    decay_floor: float = Field(0.35, ge=0, le=1)
    # How much importance moves the score: final x (1 - w + w x importance).
    importance_weight: float = Field(0.3, ge=0, le=1)
    # Graph expansion: seeds taken from the other channels, hops, and the loss per hop.
    graph_seeds: int = Field(5, ge=0, le=100)
    graph_max_hops: int = Field(2, ge=1, le=2)
    graph_hop_decay: float = Field(0.5, gt=0, le=1)
    # Entities mentioned by more episodes than this are hubs (the user, the agent): expanding
    # through them reaches everything and means nothing.
    graph_max_entity_degree: int = Field(200, gt=0)
    # How many of the latest episodes the recency channel offers: a handful, so "the latest"
    # helps the newest relevant memory without flooding fusion with unrelated ones.
    recency_candidates: int = Field(10, gt=0, le=1000)
    # Recall multiplies the recency weight by this when the query asks about time
    # ("last time", "yesterday", "上次").
    time_intent_recency_boost: float = Field(4.0, ge=1)

    # -- role and capability awareness -------------------------------------------------------
    # A memory written by or for the asking role is multiplied by this: higher keeps an
    # agent's own findings on top, lower lets other roles' memories compete.
    role_boost: float = Field(1.25, ge=1, le=4)
    # A tool-call memory about a tool the caller lacks is multiplied by this: it shows what
    # worked elsewhere, but the caller cannot repeat it. 1 disables the penalty.
    missing_capability_factor: float = Field(0.7, gt=0, le=1)

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
    host: str = "127.0.0.1"
    port: int = Field(8765, gt=0, lt=65536)
    # When set, every HTTP request except /health must carry `Authorization: Bearer <token>`.
    api_token: SecretStr | None = None

    # -- keyword channel (BM25 on sparse vectors) --------------------------------------------
    # Term-frequency saturation: higher lets repeated words count longer.
    bm25_k1: float = Field(1.2, gt=0)
    # Length normalisation: 1 punishes long episodes fully, 0 not at all.
    bm25_b: float = Field(0.75, ge=0, le=1)
    # Typical episode length in tokens, for length normalisation (a chat turn is ~20-40).
    bm25_avg_len: float = Field(30.0, gt=0)

    @property
    def graph_path(self) -> Path:
        return self.data_dir / "graph"

    @property
    def vectors_dir(self) -> Path:
        return self.data_dir / "vectors"

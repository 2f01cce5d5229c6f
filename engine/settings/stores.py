"""The settings of where hindsight's data lives and of the stores and models that hold it:
the base of `engine.settings.Settings`, read from the same `HINDSIGHT_*` variables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, JsonValue, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["StoreSettings", "default_model_cache"]

# The section of docs/configuration.md each setting is listed in.
_WHERE_AND_WHAT: dict[str, JsonValue] = {"section": "where and what"}
_BACKENDS: dict[str, JsonValue] = {"section": "production backends"}
_INPUT_LIMITS: dict[str, JsonValue] = {"section": "input limits"}


def _env(name: str) -> AliasChoices:
    """A field read from `name` (NEO4J_URI) or `HINDSIGHT_<name>`, or given by field name."""
    return AliasChoices(name.lower(), name, f"HINDSIGHT_{name}")


def default_model_cache() -> Path:
    """Where exported models are cached unless set: hindsight/ in the user's cache directory
    (XDG_CACHE_HOME, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hindsight"


class StoreSettings(BaseSettings):
    """Where the data lives, the backends and models, and the limits of what is stored."""

    # A wrong value is named, never echoed: it may be a token or a password.
    model_config = SettingsConfigDict(
        env_prefix="HINDSIGHT_", frozen=True, hide_input_in_errors=True
    )

    data_dir: Path = Field(
        Path("./hindsight-data"), json_schema_extra=_WHERE_AND_WHAT,
        description="Where the embedded stores, the archive and the audit log live (the archive "
        "and the audit log also with the neo4j backend).",
    )
    backend: Literal["embedded", "neo4j"] = Field(
        "embedded", json_schema_extra=_WHERE_AND_WHAT,
        description="embedded: Ladybug + Qdrant Edge under data_dir, one process, nothing to run "
        "beside it. neo4j: Neo4j 5 (NEO4J_*) + a Qdrant server (QDRANT_*), for many "
        "processes.",
    )
    vector_store: Literal["auto", "edge", "qdrant"] = Field(
        "auto", json_schema_extra=_WHERE_AND_WHAT,
        description="auto: Qdrant Edge with the embedded backend, a Qdrant server with neo4j "
        "(QDRANT_URL; unset: qdrant-client's local mode). edge or qdrant pick one "
        "with either graph.",
    )
    embedder: Literal["minilm"] = Field(
        "minilm", json_schema_extra=_WHERE_AND_WHAT,
        description="minilm: all-MiniLM-L6-v2, 384-d, English only, on ONNX Runtime (exported "
        "once from the packaged torch weights, see model_cache_dir).",
    )
    multilingual_embedder: Literal["use", "off"] = Field(
        "use", json_schema_extra=_WHERE_AND_WHAT,
        description="use: episodes and queries holding Chinese (CJK) text also get a 512-d vector "
        "from Universal Sentence Encoder multilingual v3, searched for such queries in "
        "place of MiniLM's, which reads Chinese as noise. Costs"
        " ~2% of store_many for CJK text, ~120 MB of weights once loaded, nothing for "
        "English. off: MiniLM only. Changing it starts a new vector collection "
        "(hindsight doctor --repair fills it).",
    )
    embedder_precision: Literal["auto", "float32", "bfloat16", "int8"] = Field(
        "auto", json_schema_extra=_WHERE_AND_WHAT,
        description="The arithmetic of the embeddings. auto is int8: ONNX Runtime with int8 "
        "weights computes every text, stored or asked, one text a run, so that a text's vector "
        "depends on it alone; about 2x float32's speed on any CPU, no torch, vectors within a "
        "cosine of ~0.99 of float32's and recall as good; an int8 model further from float32 on a "
        "machine is refused there, noted in the model cache, and texts embed in float32 "
        "(hindsight info says so). float32: ONNX Runtime in float32. "
        "bfloat16: batches through torch in bf16 (fast only where the CPU has AVX-512 BF16, "
        "same vectors as float32 to a cosine of 0.9999), queries in float32. Changing it "
        "leaves stored vectors as they were (hindsight doctor --rebuild-vectors re-embeds them).",
    )
    embedder_bf16_min_texts: int = Field(
        8, ge=2, json_schema_extra=_WHERE_AND_WHAT,
        description="Where batches run in bf16, the fewest texts of a batch that does, on "
        "torch, which takes ~5 s to load once a process. A smaller batch, such as one "
        "store's sentences, runs in float32 on the query's model, so a one-off CLI store or"
        " a store sent during the server's warm-up never waits for torch. Above "
        "embed_part_size, store_many never uses bf16.",
    )
    embedder_threads: int = Field(
        1, ge=0, le=256, json_schema_extra=_WHERE_AND_WHAT,
        description="Cores a batch computes on; 0: all. One, because store_many already runs two "
        "embedding parts and spaCy's NER at once.",
    )
    embedder_query_threads: int = Field(
        1, ge=0, le=256, json_schema_extra=_WHERE_AND_WHAT,
        description="Cores one text (a recall's query, a single store) is embedded on; 0: all. "
        "One, because an int8 query computes no faster on more (a short text leaves "
        "threads waiting on each other), and recall's reads run beside it on another core. "
        "float32 and bfloat16 embed a lone text faster on more cores (about 1.4x "
        "on two). A value other than embedder_threads loads a second copy of the model.",
    )
    model_cache_dir: Path | None = Field(
        None, json_schema_extra=_WHERE_AND_WHAT,
        description="Where the ONNX export of the embedding model is cached (~90 MB, keyed by the"
        " model package's version): the first process exports it (~12 s), later ones "
        "load it (~0.4 s). Unset: hindsight/ under XDG_CACHE_HOME, else ~/.cache.",
    )

    numpy_blas_threads: int = Field(
        1, ge=0, le=256, json_schema_extra=_WHERE_AND_WHAT,
        description="Threads numpy's BLAS may use, set process-wide when a Memory opens; 0 leaves"
        " numpy as the host set it. One, because hindsight's products are small and "
        "more threads spin against the embedder's.",
    )
    graph_threads: int = Field(
        1, ge=0, le=256, json_schema_extra=_WHERE_AND_WHAT,
        description="Worker threads the embedded graph runs a statement on; 0: one per core. "
        "Recall's statements are small and many: one worker hands off and wakes for "
        "less, and leaves the other core to the query's embedding.",
    )
    vector_search_threads: int = Field(
        1, ge=0, le=256, json_schema_extra=_WHERE_AND_WHAT,
        description="Threads the embedded vector store searches on; 0: one per core. Qdrant "
        "Edge's default of four a core overlaps disk reads, but hindsight's shards "
        "are in memory and extra threads take the cores from the query's embedding.",
    )
    graph_index_episodes: int = Field(
        500_000, ge=0, json_schema_extra=_WHERE_AND_WHAT,
        description="Episodes whose MENTIONS edges and content hashes the embedded graph keeps in"
        " process (least recently used dropped first), so that graph expansion and "
        "the duplicate check read dicts instead of statements; 0 turns it off. Costs "
        "~0.9 KB an episode and one read of a namespace's edges on first use. A namespace "
        "larger than this alone is read by statements, with the same answers (`hindsight "
        "stats -n NS` and recall's trace say graph_reads).",
    )
    graph_cache_episodes: int = Field(
        50_000, ge=0, json_schema_extra=_WHERE_AND_WHAT,
        description="Episodes the embedded graph keeps after recall read them or store wrote "
        "them, so that the next recall asking for them reads no statement; 0 turns it"
        " off. Costs ~5 KB a short episode.",
    )

    neo4j_uri: str = Field(
        "bolt://localhost:7687", validation_alias=_env("NEO4J_URI"), json_schema_extra=_BACKENDS,
        description="The Neo4j server: neo4j:// routes across a cluster, bolt:// talks to one "
        "server.",
    )
    neo4j_user: str = Field(
        "neo4j", validation_alias=_env("NEO4J_USER"), json_schema_extra=_BACKENDS,
        description="The Neo4j user.",
    )
    neo4j_password: SecretStr = Field(
        SecretStr(""), validation_alias=_env("NEO4J_PASSWORD"), json_schema_extra=_BACKENDS,
        description="The Neo4j password.",
    )
    neo4j_database: str = Field(
        "neo4j", validation_alias=_env("NEO4J_DATABASE"), json_schema_extra=_BACKENDS,
        description="The Neo4j database.",
    )
    qdrant_url: str | None = Field(
        None, validation_alias=_env("QDRANT_URL"), json_schema_extra=_BACKENDS,
        description="Unset: qdrant-client's local mode under data_dir, for development on one "
        "machine only.",
    )
    qdrant_api_key: SecretStr | None = Field(
        None, validation_alias=_env("QDRANT_API_KEY"), json_schema_extra=_BACKENDS,
        description="The Qdrant server's API key, when it has one.",
    )
    qdrant_grpc: bool = Field(
        True, json_schema_extra=_BACKENDS,
        description="Talk to the Qdrant server over gRPC (QDRANT_GRPC_PORT) rather than REST: "
        "a call costs about half (bench.speed), and a keyword search makes one per word. "
        "Off: REST only, for a server whose gRPC port cannot be reached.",
    )
    qdrant_grpc_port: int = Field(
        6334, ge=1, le=65_535, validation_alias=_env("QDRANT_GRPC_PORT"), json_schema_extra=_BACKENDS,
        description="The Qdrant server's gRPC port, on QDRANT_URL's host.",
    )
    qdrant_count_threads: int = Field(
        3, ge=1, le=32, json_schema_extra=_BACKENDS,
        description="Counts a keyword search on a Qdrant server runs at once: one per query word "
        "gives each word's IDF within the namespace. More shorten a long query's wait "
        "on a server with cores to spare; 1 sends them one after another.",
    )
    qdrant_idf_cache_seconds: float = Field(
        10.0, ge=0.0, le=3600.0, json_schema_extra=_BACKENDS,
        description="Seconds a Qdrant server's word counts (the IDF of a keyword search, per "
        "namespace) are reused while this process writes no vectors: repeated words cost no "
        "request. Another process's writes reach the weights within this time; 0 counts on "
        "every search.",
    )
    qdrant_collection_prefix: str = Field(
        "hindsight", pattern=r"^[A-Za-z0-9_-]+$", json_schema_extra=_BACKENDS,
        description="Collections are named <prefix>-<model>-<dimension>: several deployments can "
        "share one Qdrant, and a new embedding model starts a new collection instead "
        "of mixing vectors.",
    )
    qdrant_shards: int | None = Field(
        None, ge=1, le=1_000, json_schema_extra=_BACKENDS,
        description="Shards of each collection created on a Qdrant server. Unset: the server's "
        "choice, one per node of the cluster at creation. More shards let nodes added later "
        "take a part of a collection; each shard adds a search to every query. Read when a "
        "collection is created only.",
    )
    qdrant_replication_factor: int = Field(
        2, ge=1, le=10, json_schema_extra=_BACKENDS,
        description="Copies of each shard on a Qdrant cluster. 2: any one node may die with "
        "nothing lost and searches going on, for twice the disk and the write work; 1: half "
        "of both, and a dead node's shards are gone until it returns. A single node keeps one "
        "copy whatever this says. Read when a collection is created only.",
    )
    qdrant_request_attempts: int = Field(
        4, ge=1, le=20, json_schema_extra=_BACKENDS,
        description="Attempts of a Qdrant request that failed for want of a server (connection "
        "refused or reset, timeout, a 5xx answer), 0.25 s, 0.5 s, 1 s ... apart: a node's "
        "restart or a cluster's failover costs a wait, not an error. More ride out longer "
        "outages; fewer report them sooner. Every request is idempotent, so a retry never "
        "writes twice.",
    )
    connect_attempts: int = Field(
        6, ge=1, le=100, json_schema_extra=_BACKENDS,
        description="Attempts to reach Neo4j and Qdrant on start, with exponential backoff (at "
        "most 8 s apart): a server started beside hindsight (docker compose) takes a "
        "while to be ready.",
    )

    max_content_chars: int = Field(
        100_000, gt=0, json_schema_extra=_INPUT_LIMITS,
        description="Longer content is rejected rather than silently cut: a memory must be what "
        "was said.",
    )
    max_metadata_bytes: int = Field(
        16_384, gt=0, json_schema_extra=_INPUT_LIMITS,
        description="Metadata is stored as JSON on the episode node; large blobs belong "
        "elsewhere.",
    )
    store_batch_size: int = Field(
        64, gt=0, le=10_000, json_schema_extra=_INPUT_LIMITS,
        description="Episodes per graph transaction and embedding batch in store_many: larger "
        "amortises model and transaction overhead, smaller loses less on a failure.",
    )
    embed_part_size: int = Field(
        16, gt=0, le=10_000, json_schema_extra=_INPUT_LIMITS,
        description="A store batch is embedded in parts of this many texts, shared by the model "
        "thread and the writing thread: smaller parts leave less of a core idle at a "
        "batch's end, larger ones hand off less.",
    )
    index_after_episodes: int = Field(
        2_000, gt=0, json_schema_extra=_INPUT_LIMITS,
        description="A store_many that stores at least this many episodes builds the vector index"
        " (HNSW) at its end, during which searches wait; single stores never index "
        "(call Memory.optimize()).",
    )
    vector_index_threshold_kb: int = Field(
        1_000, gt=0, json_schema_extra=_INPUT_LIMITS,
        description="Vectors (in KB; a 384-d point is 1.5 KB) above which the embedded store "
        "searches an HNSW graph instead of scanning exactly: lower indexes smaller "
        "namespaces, higher keeps more of them exact.",
    )

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

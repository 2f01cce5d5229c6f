"""Shared fixtures: a real Memory (Ladybug + Qdrant Edge) in a temporary directory, one on
each store (`on_each_store`), and a local OpenAI-compatible endpoint for the LLM hook
(`tests/llm_stub.py`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from engine import Memory, Settings
from tests.backends import STORES, drop_collections, stores_settings
from tests.llm_stub import serving_stub


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.open(settings=settings) as opened:
        yield opened


@pytest.fixture
def llm_stub() -> Iterator[str]:
    with serving_stub() as base_url:
        yield base_url


# Each graph backend with its vector stores; the embedded graph also with qdrant-client's local
# mode, which runs the Qdrant server's API, and with a Qdrant server where QDRANT_URL names one.
@pytest.fixture(params=STORES)
def on_each_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    with Memory.open(settings=stores_settings(str(request.param), tmp_path / "data")) as opened:
        yield opened
    drop_collections(tmp_path / "data")


def pytest_sessionfinish() -> None:
    drop_collections()


# HINDSIGHT_TEST_RSS=path appends each test's resident memory before and after it and the
# process's peak so far (MB, tab separated): where the suite's peak comes from.
_RSS_LOG = os.environ.get("HINDSIGHT_TEST_RSS")


def _rss_mb() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20


def _peak_rss_mb() -> int:
    """The process's resident high-water mark (VmHWM)."""
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


if _RSS_LOG:
    _RSS_PATH = Path(_RSS_LOG)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        before = _rss_mb()
        yield
        with _RSS_PATH.open("a", encoding="utf-8") as log:
            log.write(f"{item.nodeid}\t{before}\t{_rss_mb()}\t{_peak_rss_mb()}\n")

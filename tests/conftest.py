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

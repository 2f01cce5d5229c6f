"""Shared fixtures: a real Memory (Ladybug + Qdrant Edge) in a temporary directory, one on
each store (`on_each_store`), and a local OpenAI-compatible endpoint for the LLM hook
(`tests/llm_stub.py`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from engine import Memory, Settings
from tests.backends import BACKENDS, open_settings
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
# mode, which runs the Qdrant server's API.
@pytest.fixture(params=[*BACKENDS, "embedded+qdrant-local"])
def on_each_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    backend, _, vectors = str(request.param).partition("+")
    overrides: dict[str, Any] = {"vector_store": "qdrant"} if vectors else {}
    with Memory.open(settings=open_settings(backend, tmp_path / "data", **overrides)) as opened:
        yield opened

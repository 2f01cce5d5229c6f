"""Shared fixtures: a real Memory (Ladybug + Qdrant Edge) in a temporary directory, and a
local OpenAI-compatible endpoint for the LLM hook (`tests/llm_stub.py`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from engine import Memory, Settings
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

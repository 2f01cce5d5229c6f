"""Shared fixtures: a real Memory (Ladybug + Qdrant Edge) in a temporary directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from engine import Memory, Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.open(settings=settings) as opened:
        yield opened

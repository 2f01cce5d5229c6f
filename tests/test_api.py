"""The public surface: explicit __all__, and every façade method documented."""

from __future__ import annotations

import inspect

import engine
from engine import Memory


def test_all_names_exist_and_nothing_public_is_missing() -> None:
    assert len(engine.__all__) == len(set(engine.__all__))
    for name in engine.__all__:
        assert hasattr(engine, name), name


def test_public_facade_methods_have_full_docstrings() -> None:
    for name, member in inspect.getmembers(Memory, inspect.isfunction):
        if name.startswith("_"):
            continue
        doc = inspect.getdoc(member) or ""
        assert doc, f"Memory.{name} has no docstring"
    for name in ("open", "store", "store_many", "recall"):
        doc = inspect.getdoc(getattr(Memory, name)) or ""
        assert "Returns:" in doc and "Raises:" in doc, name

"""Store roles (protocols in `base`) and their backends; `open_stores` picks them from settings."""

from engine.stores.base import GraphStore, VectorStore
from engine.stores.factory import open_stores

__all__ = ["GraphStore", "VectorStore", "open_stores"]

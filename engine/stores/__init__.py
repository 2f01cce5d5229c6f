"""Store roles (protocols in `base` and `archive`) and their backends; `open_stores` and
`open_archive` pick them from settings."""

from engine.stores.archive import ArchiveStore
from engine.stores.base import GraphStore
from engine.stores.factory import OpenStores, open_archive, open_stores
from engine.stores.vectors import VectorStore

__all__ = ["ArchiveStore", "GraphStore", "OpenStores", "VectorStore", "open_archive", "open_stores"]

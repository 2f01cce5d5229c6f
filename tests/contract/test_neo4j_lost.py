"""Neo4j lost in the middle of a `store_many`: the connection to the server is cut (through a
loopback proxy) after the first batch is acknowledged. The call fails with a clear error,
the acknowledged batches stay, nothing of the failed batch is visible, and once the server is
reachable again `doctor` finds the graph and the vectors in agreement."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from engine import Memory
from engine.errors import StoreUnavailable
from tests.backends import live, open_settings


class _Proxy:
    """Forwards loopback connections to `upstream` until `cut()`, which closes every one and
    refuses new ones until `restore()`."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            if self._listener is not None:
                with contextlib.suppress(OSError):  # wakes the thread blocked in accept()
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            with self._lock:
                if self._listener is not listener:  # cut meanwhile: refuse it
                    client.close()
                    return
                server = socket.create_connection(self.upstream)
                self._sockets += [client, server]
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                target.sendall(data)
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def _proxy() -> Iterator[_Proxy]:
    target = urlparse(live("NEO4J_URI", "Neo4j server"))
    proxy = _Proxy((target.hostname or "127.0.0.1", target.port or 7687))
    proxy.restore()
    try:
        yield proxy
    finally:
        proxy.cut()


def _items(start: int, count: int) -> list[dict[str, object]]:
    return [{"content": f"Batch note {i}: token q{i}x about Project Orion in Lisbon",
             "session_id": "lost", "importance": 0.8} for i in range(start, start + count)]  # fmt: skip


@pytest.mark.neo4j
def test_a_server_lost_mid_store_many_fails_clearly_and_keeps_what_was_acknowledged(
    tmp_path: Path,
) -> None:
    with _proxy() as proxy:
        settings = open_settings(
            "neo4j", tmp_path, neo4j_uri=f"bolt://127.0.0.1:{proxy.port}", connect_attempts=2,
            store_batch_size=16,
        )  # fmt: skip
        memory = Memory.open(settings=settings)
        acknowledged: list[int] = []

        def cut_after_the_first_batch(stored: int) -> None:
            acknowledged.append(stored)
            if len(acknowledged) == 1:
                proxy.cut()

        with pytest.raises(StoreUnavailable) as lost:
            memory.store_many(_items(0, 320), progress=cut_after_the_first_batch)
        found = re.search(r"\((\d+) episodes before it are stored\)", str(lost.value))
        assert found, lost.value
        kept = int(found.group(1))  # the batches committed before the one that failed
        assert acknowledged[0] == 16 and 16 <= kept < 320
        with contextlib.suppress(StoreUnavailable):
            memory.close()

        proxy.restore()
        with Memory.open(settings=open_settings("neo4j", tmp_path, wipe=False,
                                                neo4j_uri=f"bolt://127.0.0.1:{proxy.port}")) as again:  # fmt: skip
            report = again.doctor()
            if not report.ok:  # vectors of the failed batch, written before the graph gave up
                again.doctor(repair=True)
                report = again.doctor()
            assert report.ok, report
            stored = again.list(session_id="lost", limit=100)
            # The committed batches, whole, and nothing of the one that failed.
            assert {e.content for e in stored} == {str(i["content"]) for i in _items(0, kept)}
            cards = again.recall("token q3x", top_k=3)
            assert cards and "q3x" in cards[0].content

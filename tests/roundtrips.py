"""A TCP relay that counts round trips between a client and a server: how often the client
sent something and then heard back. Put between the Neo4j driver and the server, it counts
what a user on a distant network pays for, whatever the driver pipelines."""

from __future__ import annotations

import select
import socket
import threading
from types import TracebackType

__all__ = ["RoundTrips"]

_CHUNK = 65_536


class RoundTrips:
    """Relays 127.0.0.1:`port` to `host`:`target`; `count` is the round trips so far."""

    def __init__(self, host: str, target: int) -> None:
        self._target = (host, target)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._count = 0
        self._stopped = threading.Event()
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    @property
    def count(self) -> int:
        with self._lock:
            return self._count

    def reset(self) -> None:
        with self._lock:
            self._count = 0

    def _accept(self) -> None:
        self._listener.settimeout(0.1)
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            server = socket.create_connection(self._target)
            thread = threading.Thread(target=self._relay, args=(client, server), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _relay(self, client: socket.socket, server: socket.socket) -> None:
        waiting = False  # the client has sent since it last heard back
        with client, server:
            while not self._stopped.is_set():
                ready, _, _ = select.select([client, server], [], [], 0.1)
                for end in ready:
                    data = end.recv(_CHUNK)
                    if not data:
                        return
                    if end is client:
                        server.sendall(data)
                        waiting = True
                    else:
                        if waiting:
                            with self._lock:
                                self._count += 1
                            waiting = False
                        client.sendall(data)

    def close(self) -> None:
        self._stopped.set()
        self._listener.close()
        for thread in self._threads:
            thread.join(timeout=1)

    def __enter__(self) -> RoundTrips:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

"""Qdrant server processes for the tests: one node, or a cluster of nodes in distributed mode on
loopback, each a plain process of the binary built for these machines (QDRANT_BIN, else
../shared/tools/qdrant/qdrant beside the project) with tools/qdrant/config.yaml, its own storage
folder and free ports. A node can be killed with SIGKILL and started again on the same storage.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Node", "binary", "start_cluster"]

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tools" / "qdrant" / "config.yaml"


def binary() -> Path | None:
    """The Qdrant server binary, or None when this machine has none."""
    path = Path(os.environ.get("QDRANT_BIN") or ROOT.parent / "shared" / "tools" / "qdrant" / "qdrant")
    return path if path.is_file() and os.access(path, os.X_OK) else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Node:
    """One Qdrant process; `peer` is None for a node outside any cluster."""

    executable: Path
    storage: Path
    peer: int | None = None  # its peer-to-peer port in a cluster
    bootstrap: int | None = None  # the peer port of the node it joins (None: it starts the cluster)
    http: int = field(default_factory=_free_port)
    grpc: int = field(default_factory=_free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http}"

    def start(self) -> None:
        env = {
            **os.environ,
            "QDRANT__SERVICE__HTTP_PORT": str(self.http),
            "QDRANT__SERVICE__GRPC_PORT": str(self.grpc),
            "QDRANT__STORAGE__STORAGE_PATH": str(self.storage / "storage"),
            "QDRANT__STORAGE__SNAPSHOTS_PATH": str(self.storage / "snapshots"),
        }
        command = [str(self.executable), "--config-path", str(CONFIG)]
        if self.peer is not None:
            env |= {"QDRANT__CLUSTER__ENABLED": "true", "QDRANT__CLUSTER__P2P__PORT": str(self.peer)}
            if self.bootstrap is None:
                command += ["--uri", f"http://127.0.0.1:{self.peer}"]
            else:
                command += ["--bootstrap", f"http://127.0.0.1:{self.bootstrap}",
                            "--uri", f"http://127.0.0.1:{self.peer}"]  # fmt: skip
        self.storage.mkdir(parents=True, exist_ok=True)
        log = (self.storage / "qdrant.log").open("ab")
        self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.storage)
        log.close()
        self.wait_until(lambda: self.get("/readyz", raw=True) is not None, "ready")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
            self.process = None

    def get(self, path: str, *, raw: bool = False) -> Any:
        """The answer's `result` (or, raw, True) to GET `path`; None when it does not answer."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as response:
                return True if raw else json.loads(response.read())["result"]
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def wait_until(self, condition: Any, what: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"Qdrant at {self.url} exited: {self.log_tail()}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"Qdrant at {self.url} not {what} within {timeout:.0f} s: {self.log_tail()}")
            time.sleep(0.2)

    def log_tail(self) -> str:
        path = self.storage / "qdrant.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else "(no log)"

    def peers(self) -> int:
        """How many peers this node's view of the cluster holds."""
        info = self.get("/cluster")
        return len(info.get("peers", {})) if isinstance(info, dict) else 0


def start_cluster(executable: Path, folder: Path, size: int) -> list[Node]:
    """`size` nodes in one cluster, the first the bootstrap peer; each started after the one
    before it has joined, so that consensus sees them in order."""
    first = Node(executable, folder / "node-0", peer=_free_port())
    nodes = [first]
    first.start()
    try:
        for i in range(1, size):
            node = Node(executable, folder / f"node-{i}", peer=_free_port(), bootstrap=first.peer)
            nodes.append(node)
            node.start()
            first.wait_until(lambda count=i + 1: first.peers() == count, f"joined by {i + 1} peers")
    except BaseException:
        for node in nodes:
            node.stop()
        raise
    return nodes

"""Run a real `hindsight serve` process for a test and wait until /health answers, or the
same app in process over a memory the test holds."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
from starlette.testclient import TestClient

from engine import Memory

HINDSIGHT = str(Path(sys.executable).with_name("hindsight"))


@contextmanager
def in_process(memory: Memory) -> Iterator[TestClient]:
    """The app `hindsight serve` runs, over `memory`, in this process; a server error is an
    answer (500), as a client would see it, not an exception."""
    from mcp_server.http import http_app
    from mcp_server.server import build_server

    app = http_app(build_server(memory), memory, memory.settings)
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as client:
        yield client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(
    args: list[str], env: Mapping[str, str], log_path: Path, port: int, timeout: float = 180
) -> Iterator[str]:
    """`hindsight serve ARGS` with `env`; yields the base URL once /health is 200."""
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [HINDSIGHT, "serve", *args], stdout=log, stderr=subprocess.STDOUT, env=dict(env)
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("server did not start:\n" + log_path.read_text())
            time.sleep(0.5)
        try:
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()

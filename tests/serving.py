"""Run a real `hindsight serve` process for a test and wait until /health answers."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx

HINDSIGHT = str(Path(sys.executable).with_name("hindsight"))


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

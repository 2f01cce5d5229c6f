"""Concurrency: 8 clients run a mixed workload at once, as threads on one `Memory` and as
separate processes through one MCP HTTP server. Afterwards the counts add up exactly, every
acknowledged episode is there, every acknowledged forget held, and the stores agree.

CI runs HINDSIGHT_LOAD_OPS operations per client (default 40, about a minute for both);
`make reliability` runs the full 1000 per client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from engine import Memory
from mcp_server.server import build_server
from tests.backends import BACKENDS, backend_env, open_settings
from tests.reliability.load import Tally, plan, run_async
from tests.serving import free_port, served

CLIENTS = 8
OPERATIONS = int(os.environ.get("HINDSIGHT_LOAD_OPS", "40"))
ROOT = Path(__file__).parent.parent.parent


def _check(memory: Memory, namespace: str, tallies: list[Tally]) -> None:
    live = set().union(*(t.live() for t in tallies))
    forgotten = set().union(*(set(t.forgotten) for t in tallies))
    assert sum(len(t.stored) for t in tallies) == len(set().union(*(set(t.stored) for t in tallies)))
    assert memory.stats(namespace=namespace).episodes == len(live)
    for episode_id in live:
        assert memory.get(episode_id, namespace=namespace).deleted_at is None
    for episode_id in forgotten:
        assert memory.get(episode_id, namespace=namespace).deleted_at is not None
    report = memory.doctor()
    assert report.ok, report


@pytest.mark.parametrize("backend", BACKENDS)
def test_eight_threads_on_one_memory(backend: str, tmp_path: Path) -> None:
    with Memory.open(settings=open_settings(backend, tmp_path / "data")) as memory:

        def client(number: int) -> Tally:
            async def call(tool: str, arguments: dict[str, Any]) -> Any:
                # The MCP tools in process: the same entry points, no transport.
                async with Client(build_server(memory, default_namespace="load")) as session:
                    result = await session.call_tool(tool, arguments)
                    assert not (result.is_error and tool == "store_memory"), result.content
                    return None if result.is_error else result.structured_content

            return anyio.run(run_async, plan(number, OPERATIONS, seed=1), call)

        with ThreadPoolExecutor(CLIENTS) as pool:
            tallies = list(pool.map(client, range(CLIENTS)))
        _check(memory, "load", tallies)


@pytest.mark.parametrize("backend", BACKENDS)
def test_eight_processes_through_the_mcp_http_server(backend: str, tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "served"
    settings = open_settings(backend, data)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **backend_env(backend, data)}
    with served(["--port", str(port), "--data-dir", str(data)], env, tmp_path / "server.log", port) as base:
        children = [
            subprocess.Popen([sys.executable, "-m", "tests.reliability.mcp_load_child", base, str(n),
                              str(OPERATIONS)], cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)  # fmt: skip
            for n in range(CLIENTS)
        ]
        outputs = [child.communicate(timeout=1800)[0] for child in children]
        assert [child.returncode for child in children] == [0] * CLIENTS
    tallies = [Tally(**{k: v for k, v in json.loads(out).items() if k != "reads"}) for out in outputs]
    with Memory.open(settings=settings) as memory:  # what the server acknowledged is stored
        _check(memory, "load", tallies)

"""Start-up: how long until `import engine`, `hindsight --help` and `hindsight serve --transport
stdio` answer, and whether the first store after start waits for models.

    python -m bench.startup [--runs 5] [--wait 20] [--json]

Each figure is the median of `--runs` fresh processes, beside a bare interpreter's start in the
same run (compare ratios, not times, across machines). The stdio server is started on an empty
data directory and sent MCP `initialize`; then, `--wait` seconds later (a person typing their
first message), ten `store_memory` calls: the first against the median of the others; then,
after the same pause, one more. Any store after a pause is slower than one right after
another (the process's caches went cold meanwhile): what start-up adds is the first store
against that one. A second server is sent its first store at once after `initialize` (an
agent storing what it was just told), while the models still load. Each store is two
sentences, so it embeds a batch. Last, a one-off `hindsight store` of such a text, the whole
process, into a new data directory.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HINDSIGHT = Path(sys.executable).with_name("hindsight")
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HINDSIGHT_REFLECTION_INTERVAL": "0"}


def wall(command: list[str]) -> float:
    """Seconds for a process to run to its end."""
    start = time.perf_counter()
    subprocess.run(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def stdio_run(wait: float) -> dict[str, Any]:
    """One server: seconds to answer `initialize`, then the ten stores' seconds, then the
    seconds of a store after the same pause."""
    with tempfile.TemporaryDirectory(prefix="startup-") as data:
        start = time.perf_counter()
        with subprocess.Popen(
            [str(HINDSIGHT), "serve", "--transport", "stdio", "--data-dir", data], env=ENV, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        ) as server:  # fmt: skip
            try:
                initialize = _initialize(server, start)
                time.sleep(wait)
                stores = [_store(server, n) for n in range(10)]
                time.sleep(wait)
                paused = _store(server, 10)
            finally:
                server.terminate()
                server.wait(timeout=30)
    return {"initialize": initialize, "stores": stores, "paused": paused}


def _initialize(server: subprocess.Popen[str], start: float) -> float:
    """Seconds from `start` until the server answered MCP `initialize`."""
    assert server.stdout is not None
    _send(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})  # fmt: skip
    server.stdout.readline()
    answered = time.perf_counter() - start
    _send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return answered


def _store(server: subprocess.Popen[str], n: int) -> float:
    """Seconds for one `store_memory` call to be answered."""
    assert server.stdout is not None
    started = time.perf_counter()
    _send(server, {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call", "params": {
        "name": "store_memory",
        "arguments": {"content": _text(n)}}})  # fmt: skip
    server.stdout.readline()
    return time.perf_counter() - started


def _cli_store() -> float:
    """Seconds for `hindsight store` of a two-sentence text, a new data directory each time."""
    with tempfile.TemporaryDirectory(prefix="startup-") as data:
        return wall([str(HINDSIGHT), "store", _text(0), "--data-dir", data])


def _text(n: int) -> str:
    return f"We decided to move the Atlas launch to day {n} of the sprint. Priya will tell the Berlin team."


def _send(server: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert server.stdin is not None
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()


def run(runs: int, wait: float) -> dict[str, Any]:
    python = sys.executable
    median = statistics.median
    bare = median(wall([python, "-c", "pass"]) for _ in range(runs))
    imported = median(wall([python, "-c", "import engine"]) for _ in range(runs))
    help_ = median(wall([str(HINDSIGHT), "--help"]) for _ in range(runs))
    served = [stdio_run(wait) for _ in range(runs)]
    first = median(s["stores"][0] for s in served)
    later = median(median(s["stores"][1:]) for s in served)
    paused = median(s["paused"] for s in served)
    at_once = median(stdio_run(0.0)["stores"][0] for _ in range(runs))
    one_off = median(_cli_store() for _ in range(runs))
    return {
        "bare_interpreter_s": round(bare, 3), "import_engine_s": round(imported, 3), "help_s": round(help_, 3),
        "stdio_initialize_s": round(median(s["initialize"] for s in served), 3),
        "first_store_s": round(first, 3), "later_store_s": round(later, 3),
        "first_over_later": round(first / later, 2), "paused_store_s": round(paused, 3),
        "first_over_paused": round(first / paused, 2), "first_store_at_once_s": round(at_once, 3),
        "cli_store_s": round(one_off, 3),
        "wait_s": wait, "runs": runs,
    }  # fmt: skip


def table(result: dict[str, Any]) -> str:
    return "\n".join([
        f"Start-up (median of {result['runs']} processes; the first store {result['wait_s']:g} s after initialize)",
        "| measure | seconds |", "|---|---|",
        f"| bare interpreter | {result['bare_interpreter_s']} |",
        f"| `import engine` | {result['import_engine_s']} |",
        f"| `hindsight --help` | {result['help_s']} |",
        f"| `serve --transport stdio` answers `initialize` | {result['stdio_initialize_s']} |",
        f"| first `store_memory` | {result['first_store_s']} |",
        f"| later `store_memory` (median of the next nine) | {result['later_store_s']} |",
        f"| first / later | {result['first_over_later']}x |",
        f"| `store_memory` after the same pause, once those ten are done | {result['paused_store_s']} |",
        f"| first / after the same pause | {result['first_over_paused']}x |",
        f"| first `store_memory` sent at once after `initialize` | {result['first_store_at_once_s']} |",
        f"| `hindsight store`, one-off | {result['cli_store_s']} |",
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--wait", type=float, default=20.0, help="seconds between initialize and the first store")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.runs, args.wait)
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

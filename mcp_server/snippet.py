"""The JSON an MCP client needs to reach this server: printed by `hindsight serve`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from engine.settings import Settings
from mcp_server.server import MCP_PATH, Transport

__all__ = ["client_config"]


def client_config(
    transport: Transport, settings: Settings, *, namespace: str, data_dir: Path
) -> str:
    """An `mcpServers` entry for Claude Desktop, Cursor, VS Code and other MCP clients.

    The bearer token is never printed: the snippet refers to `${HINDSIGHT_API_TOKEN}`.

    >>> from engine.settings import Settings
    >>> print(client_config("streamable-http", Settings(), namespace="agent-a",
    ...                     data_dir=Path("/data")))  # doctest: +NORMALIZE_WHITESPACE
    {"mcpServers": {"hindsight": {"type": "http",
      "url": "http://127.0.0.1:8765/mcp?namespace=agent-a"}}}
    """
    entry: dict[str, Any]
    if transport == "stdio":
        command = shutil.which("hindsight") or f"{sys.executable} -m engine.cli"
        program, *prefix = command.split(" ")
        entry = {
            "command": program,
            "args": prefix
            + ["serve", "--transport", "stdio", "--namespace", namespace,
               "--data-dir", str(data_dir.resolve())],
        }  # fmt: skip
    else:
        # A server bound to every interface is reached, from this machine, on loopback.
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
        base = f"http://{host}:{settings.port}"
        if transport == "sse":
            entry = {"type": "sse", "url": f"{base}/sse?namespace={namespace}"}
        else:
            entry = {"type": "http", "url": f"{base}{MCP_PATH}?namespace={namespace}"}
        if settings.api_token is not None:
            entry["headers"] = {"Authorization": "Bearer ${HINDSIGHT_API_TOKEN}"}
        elif settings.api_tokens is not None:  # a token bound to this namespace
            entry["headers"] = {"Authorization": "Bearer <your token>"}
    return json.dumps({"mcpServers": {"hindsight": entry}}, indent=None, ensure_ascii=False)

"""One MCP client process of test_concurrency: runs its workload against the server over
streamable HTTP and prints its tally as JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.reliability.load import plan, run_async


async def main(base: str, client: int, operations: int) -> None:
    async with Client(streamable_http_client(f"{base}/mcp?namespace=load")) as session:

        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            result = await session.call_tool(tool, arguments)
            if result.is_error:
                if tool == "store_memory":
                    raise RuntimeError(f"store failed: {result.content}")
                return None
            return result.structured_content

        tally = await run_async(plan(client, operations, seed=2), call)
    print(json.dumps({"stored": tally.stored, "forgotten": tally.forgotten, "reads": tally.reads}))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))

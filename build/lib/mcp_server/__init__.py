"""MCP tools over `engine.Memory` (stdio, SSE, streamable HTTP).

Not built yet: the MCP server issue adds the tools here. Every tool will call one `Memory`
method, like the CLI does.
"""

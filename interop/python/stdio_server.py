#!/usr/bin/env python3
"""Peer MCP server for the stdio interop tests: the Python SDK (`mcp`, pinned in
requirements.txt) serving a few tools over stdin/stdout.

    python stdio_server.py

Tools: add(a, b) -> the sum as text; echo(text) -> text.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-stdio-peer", instructions="Python SDK stdio peer server.")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    server.run("stdio")

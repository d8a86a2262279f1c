#!/usr/bin/env python3
"""Peer MCP server for the trace-propagation interop tests: the Python SDK (`mcp`, pinned in
requirements.txt) with a recording OpenTelemetry SDK TracerProvider installed globally.

    python otel_server.py               serve over stdin/stdout
    python otel_server.py --http PORT   serve Streamable HTTP at http://127.0.0.1:PORT/mcp

With --http, one line `listening on http://127.0.0.1:PORT/mcp` is printed to stdout once the
socket accepts connections (PORT 0 lets the kernel pick a free port; the line has the real one).

The SDK's OpenTelemetryMiddleware (on by default) wraps every inbound request in a SERVER span
named `<method>[ <target>]`, parented on the W3C `traceparent`/`tracestate` of `params._meta`
(only there: a `traceparent` HTTP header is ignored); without one, the span starts a new trace.

Tools:
    trace_context()  the current span inside the tool (the server span of its tools/call), as a
                     JSON object: {"trace_id": 32 hex, "span_id": 16 hex, "parent_span_id": 16 hex
                     or null, "name": str, "kind": "SERVER"|..., "trace_state": W3C tracestate
                     or null}; as text (pretty-printed) and as structured content
    echo(text)       text, unchanged
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

trace.set_tracer_provider(TracerProvider())

server = MCPServer("python-otel-peer", instructions="Python SDK peer server reporting its trace context.")


@server.tool()
async def trace_context() -> dict[str, Any]:
    """Report the current OpenTelemetry span: trace id, span id, parent span id, name and kind."""
    span = trace.get_current_span()
    context = span.get_span_context()
    parent = getattr(span, "parent", None)  # SDK spans only; the API's NonRecordingSpan has none
    return {
        "trace_id": trace.format_trace_id(context.trace_id),
        "span_id": trace.format_span_id(context.span_id),
        "parent_span_id": trace.format_span_id(parent.span_id) if parent is not None else None,
        "name": getattr(span, "name", None),
        "kind": span.kind.name if hasattr(span, "kind") else None,
        "trace_state": context.trace_state.to_header() or None,
    }


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


async def serve_http(port: int) -> None:
    """As MCPServer.run("streamable-http", port=...), announcing the bound address once up."""
    app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(uv.serve)
        while not uv.started:
            if uv.should_exit:
                return
            await anyio.sleep(0.02)
        bound = uv.servers[0].sockets[0].getsockname()[1]
        print(f"listening on http://127.0.0.1:{bound}/mcp", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio")
    else:
        anyio.run(serve_http, args.http)

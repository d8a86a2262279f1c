#!/usr/bin/env python3
"""Peer MCP client for the trace-propagation interop tests: the Python SDK (`mcp`, pinned in
requirements.txt) with a recording OpenTelemetry SDK TracerProvider (spans kept in memory).

    python otel_client.py --url http://HOST:PORT/mcp --tool NAME [--args JSON] [--era ERA]
    python otel_client.py --stdio "COMMAND LINE" --tool NAME [--args JSON] [--era ERA]

--url speaks Streamable HTTP; --stdio launches the command (split as a shell would, no shell
involved) and speaks MCP on its stdin/stdout. The client connects, calls the tool once with the
JSON object of --args (default {}), disconnects and prints ONE JSON object to stdout:
    {"protocolVersion": negotiated version,
     "result": the result's structuredContent, or its text content when it has none,
     "text": the result's text content blocks, concatenated,
     "isError": the result's isError,
     "spans": [{"name", "kind", "trace_id", "span_id", "parent_span_id", "attributes"}, ...]}
"spans" holds every span the client finished, in the order they ended: the SDK makes one CLIENT
span per request, `MCP send <method>[ <tool>]`, and injects its W3C `traceparent` into the
request's `params._meta`. On a failure, "error" ({"message", "code"}) replaces "result" and the
exit code is 1.

--era picks the SDK's `Client(mode=...)`: `auto` (default) probes `server/discover` and falls
back to the `initialize` handshake; `legacy` always does the handshake (offering 2025-11-25, the
server may counter-offer an older version); `modern` adopts 2026-07-28 without a probe.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types.version import LATEST_MODERN_VERSION
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(provider)

MODES = {"auto": "auto", "legacy": "legacy", "modern": LATEST_MODERN_VERSION}


def span_json(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": trace.format_trace_id(context.trace_id),
        "span_id": trace.format_span_id(context.span_id),
        "parent_span_id": trace.format_span_id(span.parent.span_id) if span.parent is not None else None,
        "attributes": {k: list(v) if isinstance(v, tuple) else v for k, v in (span.attributes or {}).items()},
    }


def error_json(error: BaseException) -> dict[str, Any]:
    # Exception groups from the transport's task group: report the first leaf.
    while getattr(error, "exceptions", None):
        error = error.exceptions[0]  # type: ignore[attr-defined]
    if isinstance(error, MCPError):
        return {"code": error.code, "message": error.message}
    return {"code": None, "message": f"{type(error).__name__}: {error}"}


async def main(args: argparse.Namespace) -> int:
    server: Any = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:]) if args.stdio else args.url
    report: dict[str, Any] = {"protocolVersion": None}
    try:
        async with Client(server, mode=MODES[args.era], read_timeout_seconds=args.timeout) as client:
            report["protocolVersion"] = client.protocol_version
            result = await client.call_tool(args.tool, args.args)
        text = "".join(getattr(block, "text", "") for block in result.content)
        report["result"] = result.structured_content if result.structured_content is not None else text
        report["text"] = text
        report["isError"] = result.is_error is True
        code = 0
    except Exception as error:  # connection, transport and protocol failures
        report["error"] = error_json(error)
        code = 1
    report["spans"] = [span_json(span) for span in EXPORTER.get_finished_spans()]
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp")
    target.add_argument("--stdio", type=shlex.split, metavar="COMMAND", help="server command line to launch")
    parser.add_argument("--tool", required=True)
    parser.add_argument("--args", type=json.loads, default={}, metavar="JSON", help="tool arguments (an object)")
    parser.add_argument("--era", choices=sorted(MODES), default="auto")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS")
    sys.exit(anyio.run(main, parser.parse_args()))

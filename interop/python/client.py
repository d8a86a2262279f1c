#!/usr/bin/env python3
"""Peer MCP client for interoperability tests: the Python SDK (`mcp`, pinned in
requirements.txt) over Streamable HTTP.

    python client.py <scenario> <url> [--mode auto|legacy|2026-07-28] [--script steps.json]
                                      [--timeout SECONDS]
    python client.py <scenario> [options] --stdio <command> [args...]

With --stdio (last: everything after it is the command line) the SDK launches the command
and speaks MCP on its stdin/stdout (`StdioServerParameters`) instead of Streamable HTTP.

Scenarios (SCENARIOS below; add new ones there):
    connect   connect and report the negotiated era and version
    tools     connect, list every tool, then run the scripted tool calls
    features  connect, list resources, templates and prompts, then run the reads,
              prompts/get calls and completions of a features script (the format of
              interop/features.mjs: {"read": [...], "prompts": [...], "complete": [...]})
    context   as tools, with sampling and logging callbacks: steps may also carry
              "logLevel" (legacy: logging/setLevel first; modern: the request's
              io.modelcontextprotocol/logLevel _meta key), "progress": true and
              "cancelAfterMs" (the call is cancelled after that many ms), as in client.mjs

--mode is the SDK's own `Client(mode=...)`: `auto` (its default) probes `server/discover`
and falls back to the `initialize` handshake, `legacy` always does the handshake, a modern
version string adopts that version without a probe.

The steps file has the format of interop/client.mjs: an array of steps, or
{"steps": [...]}, each step {"tool": name, "arguments": {...},
"expect": {"isError": bool, "text": str, "structuredContent": value},
"expectError": code | true}.

Every line on stdout is one JSON object with an "event" field, as client.mjs prints them:
    connected  sdk, mode, era, protocolVersion, serverInfo, capabilities, instructions
    tool       name, title, description, inputSchema, outputSchema
    step       one scripted call: content, structuredContent, isError
    log        a notifications/message received (context)
    progress   a progress notification of a step's call (context)
    sampling   a sampling request and the answer given (context)
    cancelled  a step's call cancelled after cancelAfterMs (context)
    error      code and message of a protocol, transport or validation error
    mismatch   a scripted expectation that did not hold
    done       summary
Exit codes: 0 ok, 1 protocol/transport error, 2 usage error, 3 expectation mismatch.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from typing import Any, Awaitable, Callable

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference, ResourceTemplateReference
from mcp_types.version import MODERN_PROTOCOL_VERSIONS


def out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def dump(model: Any) -> Any:
    """A pydantic model as its wire JSON (camelCase keys, unset fields left out)."""
    if model is None:
        return None
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def describe(error: BaseException) -> dict[str, Any]:
    if isinstance(error, MCPError):
        info: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.data is not None:
            info["data"] = error.data
        return info
    # Exception groups from the transport's task group: report the first leaf.
    while getattr(error, "exceptions", None):
        error = error.exceptions[0]  # type: ignore[attr-defined]
    if isinstance(error, MCPError):
        return describe(error)
    return {"code": None, "message": str(error), "name": type(error).__name__}


def load_steps(path: str | None) -> list[dict[str, Any]]:
    if path is None:
        return []
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        usage(f"cannot read steps file {path}: {e}")
    steps = doc if isinstance(doc, list) else doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list):
        usage('steps file must be an array or an object with a "steps" array')
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
            usage(f'step {i}: "tool" (string) is required')
    return steps


def text_of(content: list[dict[str, Any]]) -> str:
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def check_expect(expect: dict[str, Any] | None, step: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if not expect:
        return problems
    if "isError" in expect and step["isError"] != expect["isError"]:
        problems.append(f"isError: expected {expect['isError']}, got {step['isError']}")
    if "text" in expect and text_of(step["content"]) != expect["text"]:
        problems.append(f"text: expected {expect['text']!r}, got {text_of(step['content'])!r}")
    if "structuredContent" in expect and step["structuredContent"] != expect["structuredContent"]:
        problems.append(
            f"structuredContent: expected {json.dumps(expect['structuredContent'])}, "
            f"got {json.dumps(step['structuredContent'])}"
        )
    return problems


async def scenario_connect(client: Client, args: argparse.Namespace) -> int:
    del client, args
    return 0


async def scenario_tools(client: Client, args: argparse.Namespace) -> int:
    cursor: str | None = None
    for _ in range(64):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            listed = dump(tool)
            out(
                {
                    "event": "tool",
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "inputSchema": listed.get("inputSchema"),
                    "outputSchema": listed.get("outputSchema"),
                }
            )
        cursor = page.next_cursor
        if cursor is None:
            break
    mismatches = 0
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    for index, step in enumerate(load_steps(args.script)):
        CURRENT["step"] = index
        CURRENT["sample"] = step.get("sample")
        level = step.get("logLevel")
        meta = {"io.modelcontextprotocol/logLevel": level} if level is not None and modern else None
        progress = None
        if step.get("progress"):

            async def progress(done: float, total: float | None, message: str | None, index: int = index) -> None:
                out({"event": "progress", "step": index, "progress": done, "total": total, "message": message})

        try:
            if level is not None and not modern:
                await client.set_logging_level(level)
            call = client.call_tool(step["tool"], step.get("arguments", {}), progress_callback=progress, meta=meta)
            if step.get("cancelAfterMs") is not None:
                result = None
                with anyio.move_on_after(step["cancelAfterMs"] / 1000):
                    result = await call
                if result is None:
                    out({"event": "cancelled", "step": index, "tool": step["tool"]})
                    continue
                problems = ["expected the call to be cancelled, but it returned a result"]
                out({"event": "mismatch", "step": index, "tool": step["tool"], "problems": problems})
                mismatches += 1
                continue
            result = await call
        except Exception as error:  # every failure is reported, none is fatal to the runner
            info = describe(error)
            expected = step.get("expectError")
            if expected is not None and (expected is True or expected == info["code"]):
                out({"event": "error", "step": index, "tool": step["tool"], "expected": True, **info})
                continue
            out({"event": "error", "step": index, "tool": step["tool"], **info})
            return 1
        event = {
            "event": "step",
            "step": index,
            "tool": step["tool"],
            "content": [dump(block) for block in result.content],
            "structuredContent": result.structured_content,
            "isError": result.is_error is True,
        }
        out(event)
        problems = check_expect(step.get("expect"), event)
        if step.get("expectError") is not None:
            problems.append(f"expected a protocol error {step['expectError']}, but the call returned a result")
        if problems:
            mismatches += 1
            out({"event": "mismatch", "step": index, "tool": step["tool"], "problems": problems})
    return 3 if mismatches else 0


async def scenario_features(client: Client, args: argparse.Namespace) -> int:
    """Resources, templates, prompts and completion; failed requests are reported as
    `error` events with `op` and `what`, not fatal (as interop/features.mjs does)."""
    try:
        with open(args.script, encoding="utf-8") as f:
            script = json.load(f)
    except (OSError, TypeError, ValueError) as e:
        usage(f"cannot read the features script {args.script}: {e}")

    async def attempt(op: str, what: Any, run: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        try:
            out(await run())
        except Exception as error:  # reported, not fatal
            out({"event": "error", "op": op, "what": what, **describe(error)})

    async def resources() -> dict[str, Any]:
        return {"event": "resources", "resources": [dump(r) for r in (await client.list_resources()).resources]}

    async def templates() -> dict[str, Any]:
        page = await client.list_resource_templates()
        return {"event": "templates", "resourceTemplates": [dump(t) for t in page.resource_templates]}

    async def prompts() -> dict[str, Any]:
        return {"event": "prompts", "prompts": [dump(p) for p in (await client.list_prompts()).prompts]}

    await attempt("resources", None, resources)
    await attempt("templates", None, templates)
    await attempt("prompts", None, prompts)
    for uri in script.get("read", []):

        async def read(uri: str = uri) -> dict[str, Any]:
            result = await client.read_resource(uri)
            return {"event": "read", "uri": uri, "contents": [dump(c) for c in result.contents]}

        await attempt("read", uri, read)
    for p in script.get("prompts", []):

        async def get(p: dict[str, Any] = p) -> dict[str, Any]:
            result = await client.get_prompt(p["name"], p.get("arguments"))
            return {"event": "prompt", "name": p["name"], "messages": [dump(m) for m in result.messages]}

        await attempt("prompt", p["name"], get)
    for c in script.get("complete", []):

        async def complete(c: dict[str, Any] = c) -> dict[str, Any]:
            ref = c["ref"]
            if ref["type"] == "ref/prompt":
                reference: Any = PromptReference(type="ref/prompt", name=ref["name"])
            else:
                reference = ResourceTemplateReference(type="ref/resource", uri=ref["uri"])
            context = c.get("context", {}).get("arguments")
            result = await client.complete(reference, c["argument"], context)
            return {
                "event": "completion",
                "ref": ref,
                "argument": c["argument"]["name"],
                "completion": dump(result.completion),
            }

        await attempt("complete", c["argument"]["name"], complete)
    return 0


# The step being run, for the callbacks of the context scenario.
CURRENT: dict[str, Any] = {"step": None, "sample": None}


async def on_sampling(context: Any, params: Any) -> Any:
    from mcp_types import CreateMessageResult, TextContent

    del context
    text = (CURRENT["sample"] or {}).get("text", "This is a canned completion from the interop client")
    messages = [dump(m) for m in params.messages]
    out({"event": "sampling", "step": CURRENT["step"], "messages": messages, "maxTokens": params.max_tokens, "answer": text})
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="interop-client", stop_reason="endTurn")


async def on_log(params: Any) -> None:
    out({"event": "log", "step": CURRENT["step"], "level": params.level, "logger": params.logger, "data": params.data})


SCENARIOS: dict[str, Callable[[Client, argparse.Namespace], Awaitable[int]]] = {
    "connect": scenario_connect,
    "tools": scenario_tools,
    "features": scenario_features,
    "context": scenario_tools,
}


def usage(message: str) -> None:
    sys.stderr.write(f"client.py: {message}\n")
    sys.exit(2)


async def main(args: argparse.Namespace) -> int:
    scenario = SCENARIOS[args.scenario]
    try:
        if args.stdio:
            server: Any = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
        elif args.url:
            server = args.url
        else:
            usage("a <url> or --stdio <command> is required")
        callbacks: dict[str, Any] = (
            {"sampling_callback": on_sampling, "logging_callback": on_log} if args.scenario == "context" else {}
        )
        client = Client(server, mode=args.mode, read_timeout_seconds=args.timeout, **callbacks)
    except ValueError as e:
        usage(str(e))
    code = 1
    try:
        async with client:
            version_ = client.protocol_version
            out(
                {
                    "event": "connected",
                    "sdk": f"mcp@{version('mcp')}",
                    "mode": args.mode,
                    "era": "modern" if version_ in MODERN_PROTOCOL_VERSIONS else "legacy",
                    "protocolVersion": version_,
                    "serverInfo": dump(client.server_info),
                    "capabilities": dump(client.server_capabilities),
                    "instructions": client.instructions,
                }
            )
            code = await scenario(client, args)
    except Exception as error:  # connection and transport failures
        out({"event": "error", "phase": "connect", **describe(error)})
        code = 1
    out({"event": "done", "scenario": args.scenario, "exitCode": code})
    return code


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("url", nargs="?")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--script")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--stdio", nargs=argparse.REMAINDER)
    sys.exit(anyio.run(main, parser.parse_args()))

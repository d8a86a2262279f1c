#!/usr/bin/env python3
"""A misbehaving MCP server over stdio, for the client's robustness tests (standard
library only).

    python3 stdio_misbehave.py <mode>

Every mode but `silent` and `exit` answers `initialize` (legacy era) and `tools/list`
(tool `poke`, whose description counts the listings) and answers `server/discover` with
-32601. What `tools/call` does depends on the mode:

    ok            answers "ok"
    crash         exits with code 3
    signal        kills itself with SIGKILL
    garbage       first writes noise (non-JSON lines, a response with a wrong id, a
                  response without an id), asks the client `ping` and waits for the answer,
                  then answers "pong received"
    garbage-only  writes noise forever instead of answering
    wrong-id      answers with another id
    flood         writes 20000 notifications, then answers "ok"
    slow          sleeps arguments.ms, then answers "overlap" if another request arrived
                  meanwhile (the client did not wait its turn), else "slept"
    list-changed  sends notifications/tools/list_changed, then answers "ok"
    huge          writes a 20 MiB line, then answers "ok"
    cancel        never answers a call named `hang`; waits for the client's
                  notifications/cancelled of it instead; a later call answers the JSON of
                  the cancellations received so far
    silent        never answers anything
    exit          exits with code 7 at once

With MISBEHAVE_PIDFILE set, the process writes its pid there first.
"""

import json
import os
import select
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
listings = 0
cancels = []


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def raw(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(rid, result):
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def text(rid, t):
    answer(rid, {"content": [{"type": "text", "text": t}]})


def call(rid, params):
    if MODE == "crash":
        os._exit(3)
    if MODE == "signal":
        os.kill(os.getpid(), signal.SIGKILL)
    if MODE == "garbage":
        raw("hello from a stray print()")
        raw("{not json")
        send({"jsonrpc": "2.0", "id": 999999, "result": {"content": []}})
        send({"jsonrpc": "2.0", "result": {}})
        send({"jsonrpc": "2.0", "id": "server-ping", "method": "ping"})
        for line in sys.stdin:
            msg = json.loads(line)
            if msg.get("id") == "server-ping" and "result" in msg:
                break
        text(rid, "pong received")
        return
    if MODE == "garbage-only":
        while True:
            raw("garbage " * 10)
            time.sleep(0.01)
    if MODE == "wrong-id":
        text(rid + 1000 if isinstance(rid, int) else "wrong", "ok")
        return
    if MODE == "flood":
        for i in range(20000):
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": i}})
        text(rid, "ok")
        return
    if MODE == "slow":
        time.sleep(params.get("arguments", {}).get("ms", 100) / 1000)
        ready, _, _ = select.select([sys.stdin], [], [], 0)
        text(rid, "overlap" if ready else "slept")
        return
    if MODE == "cancel":
        if params.get("name") == "hang":
            for line in sys.stdin:
                msg = json.loads(line)
                if msg.get("method") == "notifications/cancelled":
                    cancels.append(msg.get("params"))
                    if msg.get("params", {}).get("requestId") == rid:
                        return
                elif msg.get("method") == "tools/call":
                    # The client's next call, sent before its cancellation arrived.
                    text(msg.get("id"), json.dumps(cancels))
            return
        text(rid, json.dumps(cancels))
        return
    if MODE == "huge":
        raw('{"jsonrpc":"2.0","id":%s,"result":{"pad":"%s"}}' % (json.dumps(rid), "x" * (20 << 20)))
    if MODE == "list-changed":
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    text(rid, "ok")


def main():
    global listings
    if "MISBEHAVE_PIDFILE" in os.environ:
        with open(os.environ["MISBEHAVE_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    if MODE == "exit":
        sys.exit(7)
    for line in sys.stdin:
        if MODE == "silent":
            continue
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if method is None or rid is None:
            continue
        if method == "initialize":
            answer(rid, {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "misbehave-" + MODE, "version": "1.0.0"},
            })
        elif method == "tools/list":
            listings += 1
            answer(rid, {"tools": [{"name": "poke", "description": f"listing {listings}",
                                    "inputSchema": {"type": "object"}}]})
        elif method == "tools/call":
            call(rid, msg.get("params", {}))
        elif method == "ping":
            answer(rid, {})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()

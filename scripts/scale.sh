#!/usr/bin/env bash
# The scaling table of issue #17: how throughput, latency and memory grow with the work,
# each MCP figure next to bare axum's (examples/add.rs against examples/bare_axum.rs, the
# fixtures of examples/common/bench.rs, driven by examples/load.rs over loopback).
#
#   scripts/scale.sh [--no-build] [-d SECONDS] [-w SECONDS] [--connections "32 1024 10000"]
#                    [--sessions N]
#
# Rows:
# - connections: modern tools/call and bare axum at each concurrency (one keep-alive
#   connection per worker): req/s, p50, p99, the server's RSS at the end of the window and
#   its CPU time per request; and the bare handler behind mcp::HttpServer (BARE_LISTENER=mcp),
#   which separates the listener's cost from the handler's. The open-file limit is raised to the hard limit first;
#   10,000 connections need about 20,000 descriptors (client and server on one machine).
# - worker threads: the same at concurrency 32 with the server on 1 and on 2 tokio worker
#   threads (TOKIO_WORKER_THREADS), the load generator on the rest of the machine.
# - idle legacy sessions: examples/session_memory.rs --mode http N (default 100,000): RSS
#   growth per session through real `initialize` requests.
# Prints the machine's load average next to the table: the timings are only comparable
# within one run, the ratios to bare axum more than the absolute figures.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DURATION=5 WARMUP=1 BUILD=1 CONNECTIONS="32 1024 10000" SESSIONS=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0; shift ;;
    -d) DURATION=$2; shift 2 ;;
    -w) WARMUP=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --sessions) SESSIONS=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "scale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/examples
if [ "$BUILD" = 1 ]; then
  (cd "$ROOT" && cargo build --release -p mcp-examples --example add --example bare_axum \
    --example load --example session_memory >&2)
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "open-file limit: $(ulimit -n); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

WORK=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# start NAME [ENV...]: starts the server, sets URL and PID.
start() {
  local name=$1; shift
  : >"$WORK/out"
  env "$@" MCP_ADDR=127.0.0.1:0 RUST_LOG=warn "$BIN/$name" >"$WORK/out" 2>"$WORK/err" &
  PID=$!
  URL=
  for _ in $(seq 100); do
    URL=$(sed -n 's/^listening //p' "$WORK/out")
    [ -n "$URL" ] && break
    sleep 0.1
  done
  [ -n "$URL" ] || { echo "scale.sh: $name did not start" >&2; cat "$WORK/err" >&2; exit 1; }
}
stop() { kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=; }

# row LABEL SERVER KIND CONCURRENCY [ENV...]
row() {
  local label=$1 server=$2 kind=$3 c=$4; shift 4
  start "$server" "$@"
  local line
  line=$("$BIN/load" --url "$URL" --kind "$kind" --concurrency "$c" --duration "$DURATION" \
    --warmup "$WARMUP" --server-pid "$PID" 2>/dev/null | grep '^{' || true)
  stop
  awk -v label="$label" -v kind="$kind" -v line="$line" 'function f(k,   m) {
      if (match(line, "\"" k "\":[-0-9.eE+]+")) return substr(line, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
      return "-" }
    BEGIN { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label, kind, f("rps"), f("p50_us"), f("p99_us"),
      (f("server_rss_kib") == "-" ? "-" : sprintf("%.1f", f("server_rss_kib") / 1024)), f("server_cpu_us_per_req"), f("errors") }'
}

echo
echo "| scenario | kind | req/s | p50 (µs) | p99 (µs) | server RSS (MiB) | server CPU (µs/req) | errors |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in $CONNECTIONS; do
  row "$c connections" add modern "$c"
  row "$c connections" bare_axum bare "$c"
  # The same handler behind mcp::HttpServer: the listener's share of a difference.
  row "$c connections, mcp listener" bare_axum bare "$c" BARE_LISTENER=mcp
done
for t in 1 2; do
  row "32 connections, $t server thread(s)" add modern 32 TOKIO_WORKER_THREADS=$t
  row "32 connections, $t server thread(s)" bare_axum bare 32 TOKIO_WORKER_THREADS=$t
done
echo
if [ "$SESSIONS" != 0 ]; then
  "$BIN/session_memory" --mode http "$SESSIONS" | grep -v '^{' || true
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

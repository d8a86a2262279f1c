#!/usr/bin/env bash
# Throughput and latency of the MCP runtime against a bare axum JSON handler, measured in
# the same run on the same machine.
#
#   scripts/load.sh [-c CONCURRENCY] [-d SECONDS] [-w SECONDS] [-t CLIENT_THREADS]
#                   [-r ROUNDS] [--pin] [--no-build]
#   scripts/load.sh --soak [MINUTES] [--pin] [--no-build]
#
# Builds the release examples, starts `add` (the annotated `add(a, b) -> {sum}` service) and
# `bare_axum` (the typed hand-written axum handler) on free loopback ports, and runs
# `examples/load.rs` against them: a modern (2026-07-28) tools/call, a stateless legacy
# tools/call, and the same modern body against bare axum, each with the same concurrency and
# duration (LOAD_KINDS may add `session`, `discover` and `list`). Prints one block per run and a table with throughput ratios
# against bare axum, and the server's CPU time per request (read from /proc; other work on
# the machine disturbs it far less than throughput). With -r N every kind runs N times,
# interleaved, and the table keeps each kind's best run and its least CPU per request; below
# it, each kind's server CPU per request and p99 over bare axum's, taken within each round,
# as the median over the rounds (issue #17's method, with its ceilings).
#
# Soak mode (--soak, default 10 minutes): starts the weather example, measures its capacity
# with examples/soak.rs at full speed for 20 s (mixed traffic: half modern callers, half
# legacy callers that initialize, call 50 times on their session and DELETE it), then runs the
# same mix at 80% of that rate for MINUTES, sampling the server's RSS every 5 s (CSV in
# target/soak-rss.csv). It passes when there were no errors and RSS is flat after the first
# minute: the last minute's mean within 5% (or 2 MiB) of the first minute's. SOAK_FRACTION
# (0.8), SOAK_CONCURRENCY (16) and SOAK_CSV override the defaults.
#
# Environment equivalents: LOAD_CONCURRENCY (32), LOAD_DURATION (10), LOAD_WARMUP (2),
# LOAD_THREADS (client threads, default: the CPU count), LOAD_ROUNDS (1), LOAD_PIN (0),
# LOAD_KINDS ("modern legacy bare"), LOAD_SESSIONS (1: also measure memory per idle legacy
# session and sessions created per second with examples/session_memory.rs, at 10,000 and
# 100,000 sessions; 0 skips it). CARGO_TARGET_DIR is honoured.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONCURRENCY=${LOAD_CONCURRENCY:-32}
DURATION=${LOAD_DURATION:-10}
WARMUP=${LOAD_WARMUP:-2}
THREADS=${LOAD_THREADS:-}
ROUNDS=${LOAD_ROUNDS:-1}
PIN=${LOAD_PIN:-0}
KINDS=${LOAD_KINDS:-"modern legacy bare"}
BUILD=1
SOAK=

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    -c|--concurrency) CONCURRENCY=$2; shift 2 ;;
    -d|--duration) DURATION=$2; shift 2 ;;
    -w|--warmup) WARMUP=$2; shift 2 ;;
    -t|--threads) THREADS=$2; shift 2 ;;
    -r|--rounds) ROUNDS=$2; shift 2 ;;
    --pin) PIN=1; shift ;;
    --no-build) BUILD=0; shift ;;
    --soak)
      SOAK=10; shift
      if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; then SOAK=$1; shift; fi ;;
    -h|--help) usage; exit 0 ;;
    *) echo "load.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET_DIR/release/examples
if [ "$BUILD" = 1 ]; then
  (cd "$ROOT" && cargo build --release --examples -p mcp-examples)
fi
for b in add bare_axum load session_memory weather soak; do
  [ -x "$BIN/$b" ] || { echo "load.sh: $BIN/$b is missing (build without --no-build)" >&2; exit 1; }
done

# With --pin, the servers get CPU 0 and the load generator CPU 1.
SERVER_CPU=()
CLIENT_CPU=()
if [ "$PIN" = 1 ]; then
  SERVER_CPU=(taskset -c 0)
  CLIENT_CPU=(taskset -c 1)
fi

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# start NAME: runs the example on a free port and sets URL to its endpoint.
start() {
  local name=$1
  # Created here: the background job opens its redirections only when it gets to run.
  : >"$WORK/$name.out"
  : >"$WORK/$name.err"
  MCP_ADDR=127.0.0.1:0 RUST_LOG=${RUST_LOG:-warn} "${SERVER_CPU[@]}" "$BIN/$name" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=($!)
  PID=$!
  local line=
  for _ in $(seq 100); do
    line=$(sed -n 's/^listening //p' "$WORK/$name.out")
    [ -n "$line" ] && break
    sleep 0.1
  done
  if [ -z "$line" ]; then
    echo "load.sh: $name did not print its listening line; stderr:" >&2
    cat "$WORK/$name.err" >&2
    exit 1
  fi
  URL=$line
}

if [ -n "$SOAK" ]; then
  start weather
  echo "weather at $URL (pid $PID); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  SOAK_CONC=${SOAK_CONCURRENCY:-16}
  CSV=${SOAK_CSV:-$TARGET_DIR/soak-rss.csv}
  probe=$("${CLIENT_CPU[@]}" "$BIN/soak" --url "$URL" --server-pid "$PID" --rate 0 \
    --concurrency "$SOAK_CONC" --duration 25 --warmup 5 --sample 5 2>/dev/null | tail -1)
  capacity=$(echo "$probe" | sed -n 's/.*"rps_after_warmup":\([0-9.]*\).*/\1/p')
  [ -n "$capacity" ] || { echo "load.sh: capacity probe failed: $probe" >&2; exit 1; }
  rate=$(awk -v c="$capacity" -v f="${SOAK_FRACTION:-0.8}" 'BEGIN { printf "%.0f", c * f }')
  echo "capacity (mixed traffic, full speed): $capacity req/s; soaking at $rate req/s for $SOAK min"
  seconds=$(awk -v m="$SOAK" 'BEGIN { printf "%.0f", m * 60 }')
  report=$("${CLIENT_CPU[@]}" "$BIN/soak" --url "$URL" --server-pid "$PID" --rate "$rate" \
    --concurrency "$SOAK_CONC" --duration "$seconds" --warmup 60 --sample 5 --csv "$CSV" \
    | tail -1) || true
  echo "$report"
  echo "RSS series: $CSV"
  awk -v r="$report" 'BEGIN {
    n = split("errors ok rps_after_warmup first_minute_mean last_minute_mean min max slope_per_min", keys, " ")
    for (i = 1; i <= n; i++) {
      k = keys[i]
      if (match(r, "\"" k "\":[-0-9.eE+]+")) v[k] = substr(r, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0
    }
    growth = v["last_minute_mean"] - v["first_minute_mean"]
    limit = v["first_minute_mean"] * 0.05; if (limit < 2048) limit = 2048
    printf "soak: %d ok, %d errors, %.0f req/s; RSS KiB after warm-up: first minute %.0f, last minute %.0f (%+.0f), min %d, max %d, slope %.1f KiB/min\n", v["ok"], v["errors"], v["rps_after_warmup"], v["first_minute_mean"], v["last_minute_mean"], growth, v["min"], v["max"], v["slope_per_min"]
    flat = (growth <= limit)
    printf "soak: %s (errors must be 0; RSS growth must stay within %.0f KiB)\n", (v["errors"] == 0 && flat) ? "PASS" : "FAIL", limit
    exit !(v["errors"] == 0 && flat)
  }'
  exit $?
fi

start add
ECHO_URL=$URL ECHO_PID=$PID
start bare_axum
BARE_URL=$URL BARE_PID=$PID
echo "add at $ECHO_URL, bare_axum at $BARE_URL"
echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"

THREAD_ARGS=()
[ -n "$THREADS" ] && THREAD_ARGS=(--threads "$THREADS")
RESULTS=$WORK/results.jsonl
FAILED=0
for round in $(seq "$ROUNDS"); do
  for kind in $KINDS; do
    url=$ECHO_URL pid=$ECHO_PID
    [ "$kind" = bare ] && url=$BARE_URL pid=$BARE_PID
    [ "$ROUNDS" -gt 1 ] && echo "round $round/$ROUNDS"
    out=$("${CLIENT_CPU[@]}" "$BIN/load" --url "$url" --kind "$kind" --concurrency "$CONCURRENCY" \
      --duration "$DURATION" --warmup "$WARMUP" --server-pid "$pid" "${THREAD_ARGS[@]}") || FAILED=1
    echo "$out" | grep -v '^{'
    echo "$out" | grep '^{' | sed "s/^{/{\"round\":$round,/" >>"$RESULTS" || true
  done
done

CPUS=$(nproc)
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== modern and legacy MCP vs bare axum: concurrency $CONCURRENCY, ${DURATION} s after ${WARMUP} s warm-up, best of $ROUNDS =="
awk -v kinds="$KINDS" '
  function field(line, key,    m) {
    if (match(line, "\"" key "\":(\"[^\"]*\"|[-0-9.eE+]+)")) {
      m = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
      gsub(/"/, "", m)
      return m
    }
    return ""
  }
  # The median of a space-separated list of numbers.
  function median(list,    a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {
    rd = field($0, "round"); kd = field($0, "kind")
    rcpu[rd, kd] = field($0, "server_cpu_us_per_req"); rp99[rd, kd] = field($0, "p99_us")
    if (rd + 0 > rounds) rounds = rd + 0
  }
  {
    k = field($0, "kind"); r = field($0, "rps") + 0
    if (!(k in rps) || r > rps[k]) {
      rps[k] = r; p50[k] = field($0, "p50_us"); p99[k] = field($0, "p99_us")
      err[k] = field($0, "errors")
    }
    c = field($0, "server_cpu_us_per_req")
    if (c != "" && c != "null" && (!(k in cpu) || c + 0 < cpu[k])) cpu[k] = c + 0
  }
  END {
    printf "%-8s %10s %10s %10s %7s %8s %13s %9s\n", "kind", "req/s", "p50 (ms)", "p99 (ms)", "errors", "vs bare", "srv us/req", "CPU bare/x"
    n = split(kinds, order, " ")
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (!(k in rps)) continue
      ratio = ("bare" in rps && rps["bare"] > 0) ? sprintf("%.2f", rps[k] / rps["bare"]) : "-"
      c = (k in cpu) ? sprintf("%.1f", cpu[k]) : "-"
      cr = ((k in cpu) && ("bare" in cpu) && cpu[k] > 0) ? sprintf("%.2f", cpu["bare"] / cpu[k]) : "-"
      printf "%-8s %10.0f %10.3f %10.3f %7d %8s %13s %9s\n", k, rps[k], p50[k] / 1000, p99[k] / 1000, err[k], ratio, c, cr
    }
    if ("bare" in rps && rps["bare"] > 0) {
      if ("modern" in rps) printf "modern/bare throughput: %.2f (target >= 0.60, goal 0.80)\n", rps["modern"] / rps["bare"]
      if ("legacy" in rps) printf "legacy/bare throughput: %.2f\n", rps["legacy"] / rps["bare"]
    }
    if ("bare" in cpu && "modern" in cpu && cpu["modern"] > 0)
      printf "server CPU per request, bare/modern: %.2f (the throughput ratio a CPU-bound server on its own cores would reach)\n", cpu["bare"] / cpu["modern"]
    # The ratios of issue #17: within each round, the server CPU per request and p99 of each
    # kind over those of bare axum; the median over the rounds, with the modern ceilings.
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (k == "bare") continue
      cl = ""; pl = ""
      for (r = 1; r <= rounds; r++) {
        if (rcpu[r, k] + 0 > 0 && rcpu[r, "bare"] + 0 > 0) cl = cl " " sprintf("%.2f", rcpu[r, k] / rcpu[r, "bare"])
        if (rp99[r, k] + 0 > 0 && rp99[r, "bare"] + 0 > 0) pl = pl " " sprintf("%.2f", rp99[r, k] / rp99[r, "bare"])
      }
      if (cl == "") continue
      ceil = (k == "modern") ? " (ceilings: CPU 1.45, p99 1.40)" : ""
      printf "%s x bare axum, median of %d round(s): server CPU per request %.2f [%s ], p99 %.2f [%s ]%s\n", k, rounds, median(cl), cl, median(pl), pl, ceil
    }
  }' "$RESULTS"
if [ "$PIN" = 1 ]; then
  echo "note: servers pinned to CPU 0, the load generator to CPU 1."
else
  echo "note: the load generator shares this machine's $CPUS CPU(s) with the server under test, for every row alike;"
  echo "      compare the ratios, not the absolute figures (try --pin for a server-on-one-core view)."
fi

# Memory per idle legacy session (RSS growth / count) and sessions created per second, with
# the in-memory store: straight through the store, and through HTTP initialize in-process.
if [ "${LOAD_SESSIONS:-1}" = 1 ]; then
  echo
  echo "== memory per idle session, in-memory store (targets: <= 1 KiB per session, 100,000 within 150 MB) =="
  for mode in store http; do
    for n in 10000 100000; do
      "$BIN/session_memory" --mode "$mode" --check "$n" || FAILED=1
    done
  done
fi
exit "$FAILED"

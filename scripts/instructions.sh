#!/usr/bin/env bash
# Instructions per request (callgrind) of each request kind, over a real loopback socket,
# against the typed bare axum handler, with the ceilings of issue #17: exits non-zero when a
# kind costs more than its ceiling times bare axum's figure.
#
#   scripts/instructions.sh [--no-build] [--rounds R] [--in-process]
#
# Each server (`examples/add.rs`: the annotated `add(a, b) -> {sum}` service;
# `examples/bare_axum.rs`: the hand-written axum handler) runs under
# `valgrind --tool=callgrind`, served by its normal listener (hyper, keep-alive), while
# `examples/load.rs --requests N` sends N requests of one kind on one connection; the server
# is then stopped with SIGTERM. Instructions per request are (count for N2 - count for N1) /
# (N2 - N1), so start-up, the connection and shutdown cancel out. With --rounds R (default 1)
# every figure is the median of R runs. Instruction counts are not disturbed by other load
# on the machine. Both servers run one tokio worker thread (INSTR_THREADS, default 1): with
# two, which thread wakes for a request varies from run to run and so do the counts (±3 %
# against ±0.5 % with one). INSTR_N1 (200) and INSTR_N2 (1200) override the request counts.
#
# --in-process also prints the older in-process figures (`examples/instr_count.rs`: requests
# through `tower::ServiceExt::oneshot`, no socket), including resources/read and prompts/get,
# and the in-process transport's round trip of the modern and the legacy (session) tools/call.
# Needs valgrind.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
BUILD=1 ROUNDS=1 INPROC=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0; shift ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --in-process) INPROC=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "instructions.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
N1=${INSTR_N1:-200}
THREADS=${INSTR_THREADS:-1}
N2=${INSTR_N2:-1200}
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/examples
if [ "$BUILD" = 1 ]; then
  cargo build --release -p mcp-examples --example add --example bare_axum --example load \
    --example instr_count >&2
fi

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# count SERVER KIND N: the server's instruction count for N requests of KIND.
count() {
  local server=$1 kind=$2 n=$3 url=
  : >"$WORK/out"
  MCP_ADDR=127.0.0.1:0 RUST_LOG=warn TOKIO_WORKER_THREADS=$THREADS \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$BIN/$server" >"$WORK/out" 2>"$WORK/err" &
  SERVER_PID=$!
  for _ in $(seq 300); do
    url=$(sed -n 's/^listening //p' "$WORK/out")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "instructions.sh: $server did not start:" >&2; cat "$WORK/err" >&2; exit 1; }
  "$BIN/load" --url "$url" --kind "$kind" --requests "$n" >/dev/null
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || true
  SERVER_PID=
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/err"
}

# per SERVER KIND: instructions per request, the median of ROUNDS runs.
per() {
  local runs=()
  for _ in $(seq "$ROUNDS"); do
    local a b
    a=$(count "$1" "$2" "$N1")
    b=$(count "$1" "$2" "$N2")
    runs+=($(( (b - a) / (N2 - N1) )))
  done
  printf '%s\n' "${runs[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# kind, server, ceiling (× bare axum), what it is
SCENARIOS=(
  "bare bare_axum - typed bare axum handler, the same modern tools/call body"
  "modern add 1.50 modern tools/call (2026-07-28, _meta envelope)"
  "legacy add 1.35 legacy stateless tools/call"
  "session add 1.50 legacy tools/call on a session"
  "discover add 1.30 server/discover"
  "list add 1.30 tools/list"
)
echo "instructions per request over loopback (callgrind, $N2 - $N1 requests, $THREADS server worker thread(s), median of $ROUNDS)"
printf '%-9s %12s %9s %9s  %s\n' kind instr/req "x bare" ceiling scenario
BARE=
FAILED=0
for line in "${SCENARIOS[@]}"; do
  read -r kind server ceiling what <<<"$line"
  v=$(per "$server" "$kind")
  [ "$kind" = bare ] && BARE=$v
  ratio=$(awk -v v="$v" -v b="$BARE" 'BEGIN { printf "%.2f", v / b }')
  verdict=
  if [ "$ceiling" != - ]; then
    if awk -v r="$ratio" -v c="$ceiling" 'BEGIN { exit !(r > c) }'; then
      verdict="  OVER"; FAILED=1
    fi
  fi
  printf '%-9s %12d %9s %9s  %s%s\n' "$kind" "$v" "$ratio" "$ceiling" "$what" "$verdict"
done

if [ "$INPROC" = 1 ]; then
  echo
  echo "in process (tower oneshot, no socket; $N2 - $N1 requests):"
  inproc() {
    local a b
    a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN/instr_count" "$1" "$N1" 2>&1 |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN/instr_count" "$1" "$N2" 2>&1 |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo "$1: $(( (b - a) / (N2 - N1) )) instructions/request"
  }
  for kind in bare modern legacy discover list tool read prompt tool-legacy read-legacy prompt-legacy; do
    inproc "$kind"
  done
  echo
  echo "in-process transport (the add server's tools/call on a pipe, client side included):"
  for kind in in-process in-process-legacy; do
    inproc "$kind"
  done
fi
if [ "$FAILED" = 1 ]; then
  echo "instructions.sh: a scenario is over its ceiling" >&2
fi
exit "$FAILED"

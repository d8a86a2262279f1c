#!/usr/bin/env bash
# The change-notification benchmark (not a test):
#
# 1. fan-out: examples/notify_bench.rs opens 1,000 then 10,000 `subscriptions/listen`
#    streams in one process and reports p50/p99/max delivery latency of a
#    `tools/list_changed` and the memory per listener;
# 2. cluster throughput: scripts/cluster.sh with one, then two replicas of the inventory
#    example behind HAProxy, driven by examples/load.rs with modern `tools/call`s of `echo`
#    (NOTIFY_BENCH_CONCURRENCY workers, default 32, for NOTIFY_BENCH_DURATION s, default 10).
#
# Release builds; needs redis-server and haproxy (as scripts/cluster.sh does).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
concurrency=${NOTIFY_BENCH_CONCURRENCY:-32}
duration=${NOTIFY_BENCH_DURATION:-10}

cargo build --release --quiet --features mcp-examples/redis \
    --example notify_bench --example inventory --example load
echo "## Fan-out of one tools/list_changed"
target/release/examples/notify_bench --listeners "${NOTIFY_BENCH_LISTENERS:-1000,10000}"

echo
echo "## Cluster throughput: modern tools/call through HAProxy ($concurrency workers, ${duration} s)"
echo
echo "| replicas | req/s | p50 | p99 | errors |"
echo "| ---: | ---: | ---: | ---: | ---: |"
for replicas in 1 2; do
    fifo=$(mktemp -u)
    mkfifo "$fifo"
    out=$(mktemp)
    MCP_CLUSTER_REPLICAS=$replicas MCP_CLUSTER_BIN=target/release/examples/inventory \
        scripts/cluster.sh <"$fifo" >"$out" &
    cluster=$!
    exec 3>"$fifo"
    url=""
    for _ in $(seq 200); do
        url=$(sed -n 's/^cluster //p' "$out")
        [ -n "$url" ] && break
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "scripts/notify_bench.sh: the cluster did not start" >&2
        exec 3>&-
        wait "$cluster" || true
        exit 1
    fi
    line=$(target/release/examples/load --url "$url" --kind modern --concurrency "$concurrency" \
        --tool echo --arguments '{"value":"hello, benchmark"}' \
        --duration "$duration" --warmup 2 | grep '^{' || true)
    python3 - "$replicas" "$line" <<'PY'
import json, sys
r = json.loads(sys.argv[2])
def ms(key):
    return f"{r[key] / 1000:.2f} ms"
print(f"| {sys.argv[1]} | {r['rps']:,.0f} | {ms('p50_us')} | {ms('p99_us')} | {r['errors']} |")
PY
    exec 3>&-
    wait "$cluster" || true
    rm -f "$fifo" "$out"
done

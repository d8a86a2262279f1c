#!/usr/bin/env bash
# The cost of a rate limit shared through Redis (a benchmark, not a test): scripts/cluster.sh
# with two replicas of the inventory example behind HAProxy, without a rate limit and with
# MCP_RATE_LIMIT=1000000/sec (so high it never refuses: every tool call pays one round trip to
# Redis, a GCRA script), driven by examples/load.rs with modern `tools/call`s of `echo`
# through HAProxy (RATE_BENCH_CONCURRENCY workers, default 32, for RATE_BENCH_DURATION s,
# default 5, after 2 s of warm-up). The two configurations alternate for RATE_BENCH_ROUNDS
# rounds (default 3), so both see the same machine; each row is one run.
#
# Release builds; needs redis-server and haproxy (as scripts/cluster.sh does).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
concurrency=${RATE_BENCH_CONCURRENCY:-32}
duration=${RATE_BENCH_DURATION:-5}
rounds=${RATE_BENCH_ROUNDS:-3}

cargo build --release --quiet --features mcp-examples/redis --example inventory --example load

echo "## Cluster throughput: modern tools/call of echo through HAProxy, two replicas ($concurrency workers, ${duration} s)"
echo
echo "| round | rate limit | req/s | p50 | p99 | errors |"
echo "| ---: | --- | ---: | ---: | ---: | ---: |"
for round in $(seq "$rounds"); do
    for limit in "" 1000000/sec; do
        fifo=$(mktemp -u)
        mkfifo "$fifo"
        out=$(mktemp)
        MCP_RATE_LIMIT=$limit MCP_CLUSTER_BIN=target/release/examples/inventory \
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
            echo "scripts/rate_bench.sh: the cluster did not start" >&2
            exec 3>&-
            wait "$cluster" || true
            exit 1
        fi
        line=$(target/release/examples/load --url "$url" --kind modern \
            --tool echo --arguments '{"value":"hello, benchmark"}' \
            --concurrency "$concurrency" --duration "$duration" --warmup 2 | grep '^{' || true)
        python3 - "$round" "${limit:-none}" "$line" <<'PY'
import json, sys
r = json.loads(sys.argv[3])
def ms(key):
    return f"{r[key] / 1000:.2f} ms"
print(f"| {sys.argv[1]} | {sys.argv[2]} | {r['rps']:,.0f} | {ms('p50_us')} | {ms('p99_us')} | {r['errors']} |")
PY
        exec 3>&-
        wait "$cluster" || true
        rm -f "$fifo" "$out"
    done
done

#!/usr/bin/env bash
# A cluster on loopback: a throwaway redis-server, two replicas of the inventory example
# (legacy sessions in Redis, the Redis event bus, one shared request-state key) and HAProxy
# in front of them (round-robin, nothing sticky), every port picked free.
#
#   scripts/cluster.sh            builds the example (feature redis), then runs the cluster
#   MCP_CLUSTER_BIN=path scripts/cluster.sh   uses that inventory binary instead
#   MCP_CLUSTER_LOGS=dir                      keeps every process's log in dir
#   MCP_CLUSTER_REPLICAS=1                    one replica behind HAProxy (benchmarks)
#   MCP_RATE_LIMIT=5/min                      the replicas' per-caller limit of tool calls,
#                                             one budget per caller in the Redis they share
#                                             (anonymous callers are keyed by address: behind
#                                             HAProxy they all share HAProxy's)
#
# Prints, once everything accepts connections:
#   redis   redis://127.0.0.1:<port>
#   replica a <pid> http://127.0.0.1:<port>/mcp
#   replica b <pid> http://127.0.0.1:<port>/mcp
#   cluster http://127.0.0.1:<port>/mcp
# then runs until its standard input ends or it gets SIGINT/SIGTERM, and stops everything
# it started. Needs redis-server and haproxy (Debian: apt-get install redis-server haproxy);
# a missing one is named and the script fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
for tool in redis-server haproxy; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "scripts/cluster.sh: missing ${missing[*]} (Debian: apt-get install redis-server haproxy)" >&2
    exit 2
fi

bin=${MCP_CLUSTER_BIN:-}
if [ -z "$bin" ]; then
    cargo build --quiet --example inventory --features mcp-examples/redis >&2
    bin=target/debug/examples/inventory
fi

dir=${MCP_CLUSTER_LOGS:-}
if [ -z "$dir" ]; then
    dir=$(mktemp -d)
    remove_dir=1
else
    mkdir -p "$dir"
    remove_dir=""
fi
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "$remove_dir" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits until 127.0.0.1:$1 accepts connections (10 s), or fails naming $2.
await_port() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "scripts/cluster.sh: $2 did not listen on port $1" >&2
    return 1
}

# ----------------------------------------------------------------------------- Redis
redis_port=""
for _ in 1 2 3 4 5; do
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$dir" --logfile "$dir/redis.log" --daemonize no &
    pid=$!
    if await_port "$port" redis-server 2>/dev/null && kill -0 "$pid" 2>/dev/null; then
        pids+=("$pid")
        redis_port=$port
        break
    fi
    kill "$pid" 2>/dev/null || true
done
if [ -z "$redis_port" ]; then
    echo "scripts/cluster.sh: redis-server did not start; its log:" >&2
    cat "$dir/redis.log" >&2 || true
    exit 1
fi
redis_url="redis://127.0.0.1:$redis_port"
echo "redis   $redis_url"

# -------------------------------------------------------------------------- replicas
# Every replica gets the same Redis, prefix and request-state key; each binds a free port
# itself and announces it on its `listening` line.
# The load balancer's port is picked first: the replicas accept it as `Host`.
front=$(free_port)
state_key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
declare -A addr
names=(a b)
case "${MCP_CLUSTER_REPLICAS:-2}" in
    1) names=(a) ;;
    2) ;;
    *) echo "scripts/cluster.sh: MCP_CLUSTER_REPLICAS must be 1 or 2" >&2; exit 2 ;;
esac
for name in "${names[@]}"; do
    MCP_ADDR=127.0.0.1:0 MCP_REPLICA="$name" MCP_REDIS_URL="$redis_url" \
        MCP_REDIS_PREFIX=mcp-cluster MCP_STATE_KEY="$state_key" \
        MCP_RATE_LIMIT="${MCP_RATE_LIMIT:-}" \
        MCP_ALLOWED_HOSTS="127.0.0.1:$front,localhost:$front" RUST_LOG="${RUST_LOG:-warn}" \
        "$bin" >"$dir/$name.out" 2>"$dir/$name.err" &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 200); do
        if grep -q '^listening ' "$dir/$name.out" 2>/dev/null; then break; fi
        if ! kill -0 "$pid" 2>/dev/null; then break; fi
        sleep 0.05
    done
    url=$(sed -n 's/^listening //p' "$dir/$name.out")
    if [ -z "$url" ]; then
        echo "scripts/cluster.sh: replica $name did not start; its log:" >&2
        cat "$dir/$name.err" >&2 || true
        exit 1
    fi
    hostport=${url#http://}
    addr[$name]=${hostport%/mcp}
    echo "replica $name $pid $url"
done

# --------------------------------------------------------------------------- HAProxy
# Round-robin per request, no stickiness. A replica that stops answering is taken out
# after one failed check (every 200 ms), and a request whose connection fails is sent to
# the other replica (redispatch), so killing a replica loses no request that can be retried.
# Each request is logged (to $dir/haproxy.log) only when MCP_CLUSTER_LOGS asks for logs.
if [ -n "$remove_dir" ]; then log_to=""; else log_to="log stdout format raw local0"; fi
cat >"$dir/haproxy.cfg" <<CFG
global
    maxconn 4000
    $log_to
defaults
    mode http
    log global
    option httplog
    timeout connect 1s
    timeout client 120s
    timeout server 120s
    timeout tunnel 120s
    option redispatch
    option http-no-delay
    retries 3
    retry-on conn-failure empty-response
frontend mcp
    bind 127.0.0.1:$front
    default_backend replicas
backend replicas
    balance roundrobin
CFG
for name in "${names[@]}"; do
    echo "    server $name ${addr[$name]} check inter 200ms fall 1 rise 2" >>"$dir/haproxy.cfg"
done
haproxy -f "$dir/haproxy.cfg" -db >"$dir/haproxy.log" 2>&1 &
pid=$!
pids+=("$pid")
if ! await_port "$front" haproxy || ! kill -0 "$pid" 2>/dev/null; then
    echo "scripts/cluster.sh: haproxy did not start on port $front (taken meanwhile?); its log:" >&2
    cat "$dir/haproxy.log" >&2 || true
    exit 1
fi
echo "cluster http://127.0.0.1:$front/mcp"

# Runs until stdin ends (or a signal).
while read -r _; do :; done

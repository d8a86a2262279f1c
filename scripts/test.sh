#!/usr/bin/env bash
# Runs every test of the workspace, starting what the tests need itself:
#
# - the pinned npm peers (interop/) and the Python peer's virtual environment
#   (interop/python/.venv), installed when missing or out of date, because the
#   interoperability and conformance tests drive them;
# - a throwaway redis-server on a free loopback port for the Redis tests, stopped when the
#   run ends (set MCP_TEST_REDIS_URL to use a Redis of your own instead).
#
# Prerequisites are checked before anything is built, and a missing one is named.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# ----------------------------------------------------------------------- prerequisites
missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$1 ($2)"); }
need cargo "Rust toolchain, https://rustup.rs"
need node "Node.js, for the TypeScript peers and the conformance suite"
need npm "npm, installs the pinned TypeScript peers"
need python3 "Python 3 with its venv module, for the Python peer (Debian: apt-get install python3 python3-venv)"
need chromium "Chromium, for the browser test (Debian: apt-get install chromium)"
need haproxy "HAProxy, for the cluster test (Debian: apt-get install haproxy)"
if [ -z "${MCP_TEST_REDIS_URL:-}" ]; then
    need redis-server "Redis, for the Redis session store tests (Debian: apt-get install redis-server), or set MCP_TEST_REDIS_URL"
fi
if [ "${MCP_FUZZ_SECONDS:-20}" != 0 ]; then
    need c++ "a C++ compiler, libFuzzer is built from source (Debian: apt-get install g++), or set MCP_FUZZ_SECONDS=0"
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "scripts/test.sh: missing prerequisites:" >&2
    printf '  - %s\n' "${missing[@]}" >&2
    exit 2
fi

# ------------------------------------------------------------------------- npm peers
if [[ ! -x interop/node_modules/.bin/node || interop/package-lock.json -nt interop/node_modules/.package-lock.json ]]; then
    echo "scripts/test.sh: installing the pinned npm peers (interop/)" >&2
    (cd interop && npm ci --no-audit --no-fund)
fi

# ---------------------------------------------------------------------- Python peer
# The Python peer (interop/python/client.py on the `mcp` SDK pinned in requirements.txt) runs
# in its own virtual environment, created or rebuilt when requirements.txt changed.
py_venv=interop/python/.venv
if [[ ! -x $py_venv/bin/python ]] || ! cmp -s interop/python/requirements.txt "$py_venv/requirements.txt"; then
    echo "scripts/test.sh: installing the pinned Python peer (interop/python/)" >&2
    rm -rf "$py_venv"
    if ! python3 -m venv "$py_venv"; then
        rm -rf "$py_venv"
        echo "scripts/test.sh: \`python3 -m venv\` failed: install Python 3's venv module (on Debian: python3-venv)" >&2
        exit 1
    fi
    "$py_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r interop/python/requirements.txt
    cp interop/python/requirements.txt "$py_venv/requirements.txt"
fi

# ----------------------------------------------------------------------------- Redis
cleanup=()
on_exit() { for c in "${cleanup[@]}"; do eval "$c" || true; done; }
trap on_exit EXIT
if [ -z "${MCP_TEST_REDIS_URL:-}" ]; then
    redis_dir=$(mktemp -d)
    cleanup+=("rm -rf '$redis_dir'")
    # A free port: let the kernel pick one, then hand it to redis-server. If another process
    # takes it in between, redis-server fails to bind and we try another.
    for _ in 1 2 3 4 5; do
        port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
        redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
            --dir "$redis_dir" --logfile "$redis_dir/redis.log" --daemonize no &
        redis_pid=$!
        up=""
        for _ in $(seq 50); do
            if ! kill -0 "$redis_pid" 2>/dev/null; then break; fi
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
            sleep 0.1
        done
        if [ -n "$up" ]; then break; fi
        kill "$redis_pid" 2>/dev/null || true
        redis_pid=""
    done
    if [ -z "${redis_pid:-}" ]; then
        echo "scripts/test.sh: redis-server did not start; its log:" >&2
        cat "$redis_dir/redis.log" >&2 || true
        exit 1
    fi
    cleanup=("kill $redis_pid; wait $redis_pid 2>/dev/null" "${cleanup[@]}")
    export MCP_TEST_REDIS_URL="redis://127.0.0.1:$port"
    echo "scripts/test.sh: throwaway redis-server at $MCP_TEST_REDIS_URL" >&2
fi

# ----------------------------------------------------------------------------- tests
# One run: unit and integration tests, doc tests, and the example binaries the smoke tests
# start (plain `cargo test` builds examples as binaries; `--all-targets` would not). The
# Redis session store and its example are built and tested too (MCP_TEST_REDIS_URL), and
# the OpenTelemetry feature: the runtime's in-process tests, the examples' OTLP/HTTP end-to-end
# and Python propagation tests (tests/otel.rs).
cargo test --workspace --locked --features mcp-runtime/redis,mcp-examples/redis,mcp-examples/otel "$@"

# The runtime's cargo features compile on their own: none (a server-only build), each alone,
# and all together (issue #17).
for features in "" client oauth redis openai otel client,otel client,oauth,redis,openai,otel; do
    cargo check --locked -q -p mcp-runtime --no-default-features ${features:+--features "$features"}
done

# The fuzz smoke run: each cargo-fuzz target of fuzz/ for MCP_FUZZ_SECONDS (default 20, so
# 120 s for the six; 0 skips it), with a fixed seed. A crash fails the run; see
# scripts/fuzz.sh for longer, randomly seeded runs.
if [ "${MCP_FUZZ_SECONDS:-20}" != 0 ]; then
    FUZZ_SEED=${FUZZ_SEED:-1} scripts/fuzz.sh "${MCP_FUZZ_SECONDS:-20}"
fi

#!/usr/bin/env bash
# Runs every test of the workspace. Installs the pinned npm peers (interop/) first when they
# are missing or out of date, because the interoperability and conformance tests drive them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x interop/node_modules/.bin/node || interop/package-lock.json -nt interop/node_modules/.package-lock.json ]]; then
    echo "scripts/test.sh: installing the pinned npm peers (interop/)" >&2
    (cd interop && npm ci --no-audit --no-fund)
fi

# One run: unit and integration tests, doc tests, and the example binaries the smoke tests
# start (plain `cargo test` builds examples as binaries; `--all-targets` would not).
# The Redis session store and its example are built and tested too: their tests need a Redis
# (MCP_TEST_REDIS_URL, default redis://127.0.0.1:6379; `.ci/run` starts one).
cargo test --workspace --locked --features mcp-runtime/redis,mcp-examples/redis "$@"

# The fuzz smoke run: each cargo-fuzz target of fuzz/ for MCP_FUZZ_SECONDS (default 20, so
# 100 s for the five; 0 skips it), with a fixed seed. A crash fails the run; see
# scripts/fuzz.sh for longer, randomly seeded runs.
if [ "${MCP_FUZZ_SECONDS:-20}" != 0 ]; then
    FUZZ_SEED=${FUZZ_SEED:-1} scripts/fuzz.sh "${MCP_FUZZ_SECONDS:-20}"
fi

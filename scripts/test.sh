#!/usr/bin/env bash
# Runs every test of the workspace. Installs the pinned npm peers (interop/) and the Python
# peer's virtual environment (interop/python/.venv) first when they are missing or out of
# date, because the interoperability and conformance tests drive them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x interop/node_modules/.bin/node || interop/package-lock.json -nt interop/node_modules/.package-lock.json ]]; then
    echo "scripts/test.sh: installing the pinned npm peers (interop/)" >&2
    (cd interop && npm ci --no-audit --no-fund)
fi

# The Python peer (interop/python/client.py on the `mcp` SDK pinned in requirements.txt) runs
# in its own virtual environment, created or rebuilt when requirements.txt changed.
py_venv=interop/python/.venv
if [[ ! -x $py_venv/bin/python ]] || ! cmp -s interop/python/requirements.txt "$py_venv/requirements.txt"; then
    if ! command -v python3 >/dev/null 2>&1; then
        echo "scripts/test.sh: Python 3 (python3 with its venv module; on Debian: python3 python3-venv) is needed for the Python interop peer (interop/python/)" >&2
        exit 1
    fi
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

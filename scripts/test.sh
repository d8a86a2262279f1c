#!/usr/bin/env bash
# Runs every test of the workspace. Installs the pinned npm peers (interop/) first when they
# are missing or out of date, because the interoperability and conformance tests drive them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x interop/node_modules/.bin/node || interop/package-lock.json -nt interop/node_modules/.package-lock.json ]]; then
    echo "scripts/test.sh: installing the pinned npm peers (interop/)" >&2
    (cd interop && npm ci --no-audit --no-fund)
fi

cargo test --workspace --all-targets --locked "$@"
cargo test --workspace --doc --locked

#!/usr/bin/env bash
# Runs the cargo-fuzz targets of fuzz/ (bodies in mcp-runtime/src/__private/fuzz.rs).
#
#   scripts/fuzz.sh [SECONDS] [TARGET ...]
#
# Each target runs for SECONDS (default 20; the test command's smoke run uses 20 for all
# six targets, 120 s in all) from its seeds (fuzz/seeds/T, committed) and its working
# corpus (fuzz/corpus/T, not committed), with the token dictionary fuzz/mcp.dict, debug
# assertions on, and no sanitizer (the project has no unsafe code; set FUZZ_SANITIZER=address
# for ASan). Default targets: message classify param_header request_state http
# listen_filter. A crash stops the run with exit 1 and leaves the input in
# fuzz/artifacts/T/: copy it into fuzz/regressions/T/ (replayed by `cargo test`, see
# mcp-runtime/tests/fuzz_regressions.rs), fix, and run again.
#
# Installs cargo-fuzz 0.13.1 when missing. Uses the nightly toolchain when rustup has one,
# otherwise the default toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Z flags).
# FUZZ_JOBS=N runs N fuzzing processes per target (libFuzzer -fork) for long runs.
# FUZZ_SEED=N fixes libFuzzer's random seed (the test command's smoke run uses 1, so that
# it explores the same way each time; long runs leave it random).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_PER_TARGET=${1:-20}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  TARGETS=(message classify param_header request_state http listen_filter)
fi
SANITIZER=${FUZZ_SANITIZER:-none}
JOBS=${FUZZ_JOBS:-1}

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "scripts/fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked --version 0.13.1
fi
CARGO=(cargo)
if cargo +nightly --version >/dev/null 2>&1; then
  CARGO=(cargo +nightly)
else
  export RUSTC_BOOTSTRAP=1
fi

cd "$ROOT/fuzz"
for target in "${TARGETS[@]}"; do
  mkdir -p "corpus/$target"
  extra=()
  if [ "$JOBS" -gt 1 ]; then extra=(-fork="$JOBS"); fi
  if [ -n "${FUZZ_SEED:-}" ]; then extra+=(-seed="$FUZZ_SEED"); fi
  echo "scripts/fuzz.sh: $target for ${SECONDS_PER_TARGET}s" >&2
  "${CARGO[@]}" fuzz run --sanitizer "$SANITIZER" --debug-assertions "$target" \
    "corpus/$target" "seeds/$target" -- \
    -max_total_time="$SECONDS_PER_TARGET" -dict=mcp.dict -max_len=65536 -timeout=10 \
    -print_final_stats=1 "${extra[@]}" 2>"$ROOT/fuzz/last-$target.log" || {
      tail -40 "$ROOT/fuzz/last-$target.log" >&2
      echo "scripts/fuzz.sh: $target FAILED; the input is in fuzz/artifacts/$target/" >&2
      exit 1
    }
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$ROOT/fuzz/last-$target.log" \
    | sed "s/^/  $target /" >&2 || true
done

#!/usr/bin/env bash
# Compile-time cost of #[mcp::service] (a benchmark, not a test): how much a 20-tool and a
# 100-tool service add to an incremental `cargo build` and to `cargo check`, and the macro's
# own expansion time.
#
# For each size N it generates, under target/bench-macro/, a crate with N tools (doc comments,
# two arguments, one of them optional, a `Result` return) and a baseline crate with the same
# methods in a plain impl. It builds both once, then edits one tool's body and rebuilds
# (`cargo build`, then `cargo check`), REPEAT times each (default 5); the cost is the median with the macro
# minus the median without. The crates reuse the workspace's Cargo.lock and target directory,
# so the dependencies are compiled once.
#
#   scripts/bench-macro.sh            # N = 20 and 100, 5 repetitions
#   SIZES="20" REPEAT=5 scripts/bench-macro.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
work=$target/bench-macro
sizes=${SIZES:-20 100}
repeat=${REPEAT:-5}
mkdir -p "$work"

gen() { # gen DIR N MACRO(1|0)
    local dir=$1 n=$2 macro=$3
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$(basename "$dir")"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
mcp = { package = "mcp-runtime", path = "$root/mcp-runtime" }
serde = { version = "1", features = ["derive"] }
schemars = "1"
TOML
    cp "$root/Cargo.lock" "$dir/Cargo.lock"
    {
        echo "#![allow(dead_code)]"
        echo "pub struct Svc;"
        if [ "$macro" = 1 ]; then echo "#[mcp::service(name = \"bench\")]"; fi
        echo "impl Svc {"
        for i in $(seq 1 "$n"); do
            cat <<RS
    /// Tool number $i: adds its arguments.
    ///
    /// # Arguments
    ///
    /// * \`a\` - The first operand
    /// * \`b\` - The optional second operand
    pub fn tool_$i(&self, a: i64, b: Option<i64>) -> Result<i64, mcp::ToolError> {
        let edit = 0i64; // edit-marker-$i
        Ok(a + b.unwrap_or($i) + edit)
    }
RS
        done
        echo "}"
    } >"$dir/src/lib.rs"
}

now() { date +%s.%N; }

# A real change to one tool's body (a new constant, from the clock: the callers run in
# subshells), so rustc recompiles the crate.
edit_body() {
    local value
    value=$(date +%s%N)
    sed -i "s|let edit = [0-9]*i64; // edit-marker-1\$|let edit = ${value}i64; // edit-marker-1|" "$1/src/lib.rs"
}

# time_edit DIR CMD...: seconds for one run of CMD in DIR after an edit of a tool's body.
time_edit() {
    local dir=$1; shift
    edit_body "$dir"
    local t0 t1
    t0=$(now)
    (cd "$dir" && CARGO_TARGET_DIR=$target "$@" >/dev/null 2>&1)
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '%-6s %-8s %12s %12s %12s\n' tools command with_macro baseline added
for n in $sizes; do
    with=$work/bench_macro_$n
    base=$work/bench_plain_$n
    gen "$with" "$n" 1
    gen "$base" "$n" 0
    for dir in "$with" "$base"; do
        (cd "$dir" && CARGO_TARGET_DIR=$target cargo build --quiet 2>/dev/null) # warm
    done
    for cmd in build check; do
        (cd "$with" && CARGO_TARGET_DIR=$target cargo "$cmd" --quiet 2>/dev/null)
        (cd "$base" && CARGO_TARGET_DIR=$target cargo "$cmd" --quiet 2>/dev/null)
        w=$(for _ in $(seq "$repeat"); do time_edit "$with" cargo "$cmd"; done | median)
        b=$(for _ in $(seq "$repeat"); do time_edit "$base" cargo "$cmd"; done | median)
        printf '%-6s %-8s %11.2fs %11.2fs %11.2fs\n' "$n" "$cmd" "$w" "$b" "$(echo "$w - $b" | bc -l)"
    done
    # The macro's own time, printed by the macro under MCP_DERIVE_TIMING.
    edit_body "$with"
    us=$(cd "$with" && MCP_DERIVE_TIMING=1 CARGO_TARGET_DIR=$target cargo check 2>&1 \
        | sed -n 's/.*expanded in \([0-9]*\) us.*/\1/p' | head -1)
    printf '%-6s %-8s %11.2fms\n' "$n" expand "$(echo "${us:-0} / 1000" | bc -l)"
done

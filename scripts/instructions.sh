#!/usr/bin/env bash
# Instructions per request (callgrind) for each request kind, in-process: a figure that other
# load on the machine does not disturb. Runs each kind at N=1000 and N=6000 and divides the
# difference by 5000, so start-up costs cancel out. Needs valgrind.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
cargo build --release --example instr_count -p mcp-examples >&2
bin="${CARGO_TARGET_DIR:-target}/release/examples/instr_count"
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
declare -A per
for kind in bare modern legacy discover; do
    a=$(count "$kind" 1000); b=$(count "$kind" 6000)
    per[$kind]=$(( (b - a) / 5000 ))
    echo "$kind: ${per[$kind]} instructions/request"
done
# resources/read and prompts/get next to tools/call, on a service where all three echo a string.
for kind in tool read prompt tool-legacy read-legacy prompt-legacy; do
    a=$(count "$kind" 1000); b=$(count "$kind" 6000)
    echo "$kind: $(( (b - a) / 5000 )) instructions/request"
done
awk -v b="${per[bare]}" -v m="${per[modern]}" -v l="${per[legacy]}" \
    'BEGIN { printf "ratio bare/modern %.2f, bare/legacy %.2f (1.0 = as cheap as bare axum)\n", b/m, b/l }'

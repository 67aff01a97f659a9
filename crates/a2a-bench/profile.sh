#!/usr/bin/env bash
# Instructions per request and the hot functions of each server, measured
# with callgrind: deterministic, so unlike requests/s it does not depend on
# what else the (shared) machine is doing. Loopback only, bounded.
#
#   crates/a2a-bench/profile.sh            # ~5 minutes after the build
#
# For each scenario: start the server under `valgrind --tool=callgrind` with
# instrumentation off, send WARM requests, switch instrumentation on, send
# REQS requests (4 connections), dump, stop. Ir/request = total Ir / REQS.
# Writes target/bench-profile/{NAME}.callgrind and a summary (stdout and
# target/bench-profile/summary.md).
#
# | env | default | what |
# |---|---|---|
# | REQS | 2000 | measured requests per scenario |
# | WARM | 300 | requests before measuring |
# | TOP | 25 | functions listed per scenario |
# | ONLY | (all) | subset of: jsonrpc-send-task jsonrpc-send-message jsonrpc-stream rest-send grpc-send |
# | SKIP_BUILD | 0 | 1: use the binaries in $TARGET_DIR/release |
# | TARGET_DIR | $ROOT/target | cargo target directory |
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET_DIR=${TARGET_DIR:-$ROOT/target}
REL="$TARGET_DIR/release"
OUT="$TARGET_DIR/bench-profile"
REQS=${REQS:-2000}
WARM=${WARM:-300}
TOP=${TOP:-25}
ONLY=${ONLY:-jsonrpc-send-task jsonrpc-send-message jsonrpc-stream rest-send grpc-send}
SKIP_BUILD=${SKIP_BUILD:-0}
mkdir -p "$OUT"
rm -f "$OUT"/*.raw* "$OUT"/*.callgrind "$OUT"/*.stdout "$OUT"/*.stderr

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
if [[ "$SKIP_BUILD" != 1 ]]; then
    (cd "$ROOT" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -p a2a-server -p a2a-bench --bins) >&2
fi

SUMMARY="$OUT/summary.md"
{
    echo "| scenario | server | Ir/request | of which malloc/free/realloc | requests |"
    echo "|---|---|---|---|---|"
} >"$SUMMARY"

# run NAME PROTO TARGET REPLY CMD...: profiles CMD serving TARGET.
run() {
    local name=$1 proto=$2 target=$3 reply=$4
    shift 4
    local raw="$OUT/$name.raw"
    echo "== $name" >&2
    rm -f "$OUT/$name.stdout" "$OUT/$name.stderr"
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$raw" "$@" \
        >"$OUT/$name.stdout" 2>"$OUT/$name.stderr" &
    local pid=$!
    PIDS+=("$pid")
    local url=
    for _ in $(seq 1 600); do
        url=$(awk -v p="$proto" '$1 == "listening" && $2 == p { print $3; exit }' "$OUT/$name.stdout")
        [[ -n "$url" ]] && break
        sleep 0.1
    done
    [[ -n "$url" ]] || { echo "$name did not start" >&2; cat "$OUT/$name.stderr" >&2; exit 1; }
    local port=${url##*:}
    port=${port%%/*}
    for _ in $(seq 1 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.2
    done
    local w=()
    [[ $target == *stream ]] && w=(--working)
    local b=("$REL/bench" --mode fill --target "$target" --reply "$reply" --url "$url"
        --server-pid "$pid" --connections 4 --warmup-tasks 0 "${w[@]}")
    # (fill exits 1 when its memory goal is missed; irrelevant here.)
    "${b[@]}" --tasks "$WARM" >/dev/null || true
    callgrind_control -i on "$pid" >/dev/null
    { "${b[@]}" --tasks "$REQS" || true; } | grep -E '^(fill|first error)' >&2 || true
    callgrind_control -d "$pid" >/dev/null
    callgrind_control -i off "$pid" >/dev/null
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    local keep=()
    for p in "${PIDS[@]}"; do [[ "$p" != "$pid" ]] && keep+=("$p"); done
    PIDS=("${keep[@]}")
    # The explicit dump is the one with the measured requests.
    local dump
    dump=$(ls -1 "$raw".* 2>/dev/null | head -1 || true)
    [[ -n "$dump" ]] || dump=$raw
    mv "$dump" "$OUT/$name.callgrind"
    rm -f "$raw" "$raw".*
    local total alloc
    total=0
    total=$(callgrind_annotate "$OUT/$name.callgrind" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t { gsub(/,/, "", $1); t = $1 } END { print t + 0 }')
    alloc=$(callgrind_annotate --inclusive=no "$OUT/$name.callgrind" 2>/dev/null |
        awk '/(malloc|free|realloc|_int_|unlink_chunk|cfree)/ && $1 ~ /^[0-9,]+$/ { gsub(/,/, "", $1); s += $1 } END { print s + 0 }') || true
    total=${total:-0}
    alloc=${alloc:-0}
    printf '| %s | %s | %d | %d (%.0f %%) | %d |\n' "$name" "$(basename "$1")" \
        $((total / REQS)) $((alloc / REQS)) "$(awk -v a="$alloc" -v t="$total" 'BEGIN { print (t > 0 ? 100 * a / t : 0) }')" "$REQS" >>"$SUMMARY"
    {
        echo
        echo "### $name: top $TOP functions, inclusive (Ir, % of total)"
        echo '```text'
        callgrind_annotate --inclusive=yes "$OUT/$name.callgrind" 2>/dev/null |
            awk -v n="$TOP" '$1 ~ /^[0-9,]+$/ && k++ < n' | cut -c1-220
        echo '```'
        echo
        echo "### $name: top $TOP functions, self"
        echo '```text'
        callgrind_annotate --inclusive=no "$OUT/$name.callgrind" 2>/dev/null |
            awk -v n="$TOP" '$1 ~ /^[0-9,]+$/ && k++ < n' | cut -c1-220
        echo '```'
    } >>"$OUT/$name.top.md"
}

wants() { [[ " $ONLY " == *" $1 "* ]]; }
A2A=("$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 --grpc-addr 127.0.0.1:0 --rest-addr 127.0.0.1:0)
rm -f "$OUT"/*.top.md

# The ceilings answer with the real server's bodies.
FX="$OUT/fixtures"
"$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 --grpc-addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 \
    >"$OUT/capture.stdout" 2>/dev/null &
CAP=$!
PIDS+=("$CAP")
for _ in $(seq 1 100); do
    [[ $(grep -c '^listening' "$OUT/capture.stdout" 2>/dev/null) -ge 3 ]] && break
    sleep 0.1
done
for t in jsonrpc-send jsonrpc-stream rest-send rest-stream grpc-send grpc-stream; do
    case $t in jsonrpc*) p=jsonrpc ;; rest*) p=http+json ;; grpc*) p=grpc ;; esac
    u=$(awk -v p="$p" '$1 == "listening" && $2 == p { print $3; exit }' "$OUT/capture.stdout")
    w=()
    [[ $t == *stream ]] && w=(--working)
    for r in task message; do
        "$REL/bench" --mode capture --target "$t" --reply "$r" --url "$u" --out-dir "$FX" "${w[@]}" >/dev/null
    done
done
kill "$CAP"
wait "$CAP" 2>/dev/null || true
PIDS=()
if wants jsonrpc-send-task; then
    run a2a-jsonrpc-send-task jsonrpc jsonrpc-send task "${A2A[@]}"
    run ceiling-jsonrpc-send-task jsonrpc jsonrpc-send task "$REL/ceiling-axum" --fixtures "$FX"
fi
if wants jsonrpc-send-message; then
    run a2a-jsonrpc-send-message jsonrpc jsonrpc-send message "${A2A[@]}"
    run ceiling-jsonrpc-send-message jsonrpc jsonrpc-send message "$REL/ceiling-axum" --fixtures "$FX"
fi
if wants jsonrpc-stream; then
    run a2a-jsonrpc-stream-task jsonrpc jsonrpc-stream task "${A2A[@]}"
    run ceiling-jsonrpc-stream-task jsonrpc jsonrpc-stream task "$REL/ceiling-axum" --fixtures "$FX"
fi
if wants rest-send; then
    run a2a-rest-send-task http+json rest-send task "${A2A[@]}"
    run ceiling-rest-send-task http+json rest-send task "$REL/ceiling-axum" --fixtures "$FX"
fi
if wants grpc-send; then
    run a2a-grpc-send-task grpc grpc-send task "${A2A[@]}"
    run ceiling-grpc-send-task grpc grpc-send task "$REL/ceiling-tonic" --fixtures "$FX"
fi
cat "$SUMMARY"
echo
echo "Top functions: $OUT/*.top.md; callgrind files: $OUT/*.callgrind (callgrind_annotate, kcachegrind)."

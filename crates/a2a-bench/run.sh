#!/usr/bin/env bash
# The A2A benchmark suite (issue 7). Loopback only, bounded in time.
#
#   crates/a2a-bench/run.sh            # defaults: ~8 minutes after the build
#   SOAK_MINUTES=10 crates/a2a-bench/run.sh
#
# Builds the release binaries, starts every server on 127.0.0.1 port 0
# (reading its `listening` lines), captures the real server's answers as the
# ceilings' fixed responses, runs each scenario with the A2A server and its
# ceiling alternately in slices (their ratio), then memory per retained
# task, idle SSE subscribers and a soak. Writes a Markdown report to stdout
# and to target/bench-report.md.
#
# | env | default | what |
# |---|---|---|
# | DURATION | 10s | measured time per target per scenario (split in ROUNDS slices) |
# | ROUNDS | 10 | alternating slices per target |
# | WARMUP | 2s | warm-up slice per target |
# | CONNECTIONS | 64 | concurrent connections (gRPC: calls over GRPC_CHANNELS HTTP/2 connections) |
# | GRPC_CHANNELS | 8 | HTTP/2 connections of the gRPC load |
# | LAT_RATE | auto | open-loop rate of the latency scenario (auto: a quarter of the closed-loop message/send rate) |
# | FILL_TASKS | 50000 | tasks of the memory-per-task measurement (after 5000 warm-up tasks) |
# | SUBSCRIBERS | 10000 | idle SSE subscribers |
# | HOLD | 20s | how long they are held open |
# | SOAK_MINUTES | 2 | soak duration |
# | SOAK_RATE | 500 | soak requests/s |
# | SOAK_SERVE_ARGS | auto | extra `a2a serve` flags for the soak server; auto: `--retain-tasks 10000` when the binary has that flag |
# | SERVE_ARGS | (none) | extra `a2a serve` flags for every A2A server |
# | PIN | 0 | 1: pin the servers to CPU 1 and the load generator to CPU 0 (taskset) |
# | SKIP_BUILD | 0 | 1: use the binaries already in target/release |
# | ONLY | (all) | space-separated subset: load latency fill idle soak |
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REL="$ROOT/target/release"
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-10}
WARMUP=${WARMUP:-2s}
CONNECTIONS=${CONNECTIONS:-64}
GRPC_CHANNELS=${GRPC_CHANNELS:-8}
LAT_RATE=${LAT_RATE:-auto}
FILL_TASKS=${FILL_TASKS:-50000}
SUBSCRIBERS=${SUBSCRIBERS:-10000}
HOLD=${HOLD:-20s}
SOAK_MINUTES=${SOAK_MINUTES:-2}
SOAK_RATE=${SOAK_RATE:-500}
SOAK_SERVE_ARGS=${SOAK_SERVE_ARGS-auto}
SERVE_ARGS=${SERVE_ARGS:-}
PIN=${PIN:-0}
SKIP_BUILD=${SKIP_BUILD:-0}
ONLY=${ONLY:-load latency fill idle soak}
REPORT="$ROOT/target/bench-report.md"
WORK=$(mktemp -d /tmp/a2a-bench.XXXXXX)
LOG="$WORK/bench.log"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "== $*" >&2; }
wants() { [[ " $ONLY " == *" $1 "* ]]; }

SERVER_CPU=()
BENCH_CPU=()
if [[ "$PIN" == 1 ]] && command -v taskset >/dev/null && (($(nproc) >= 2)); then
    SERVER_CPU=(taskset -c 1)
    BENCH_CPU=(taskset -c 0)
fi

# 10k subscribers need 10k descriptors in the server and in the client.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

if [[ "$SKIP_BUILD" != 1 ]]; then
    say "building release binaries (a2a, bench, ceiling-axum, ceiling-tonic)"
    (cd "$ROOT" && cargo build --release -p a2a-server -p a2a-bench --bins) >&2
fi
# The soak keeps the 10,000 most recently finished tasks when the server
# has a retention policy (then RSS must level off), else it retains all.
if [[ "$SOAK_SERVE_ARGS" == auto ]]; then
    SOAK_SERVE_ARGS=
    if "$REL/a2a" serve --help 2>/dev/null | grep -q -- '--retain-tasks'; then
        SOAK_SERVE_ARGS="--retain-tasks 10000"
    fi
fi

# start NAME CMD...: starts CMD in the background, waits for its
# `listening` lines; sets LAST_PID.
start() {
    local name=$1
    shift
    "${SERVER_CPU[@]}" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    LAST_PID=$!
    PIDS+=("$LAST_PID")
    for _ in $(seq 1 200); do
        if grep -q '^listening ' "$WORK/$name.out" 2>/dev/null; then
            sleep 0.2 # the other listening lines
            return 0
        fi
        if ! kill -0 "$LAST_PID" 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "error: $name did not start:" >&2
    cat "$WORK/$name.err" >&2
    exit 1
}

# stop PID: SIGTERM, wait (at most 15 s), forget.
stop() {
    local pid=$1
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    local keep=()
    for p in "${PIDS[@]}"; do [[ "$p" != "$pid" ]] && keep+=("$p"); done
    PIDS=("${keep[@]}")
}

url() { awk -v p="$2" '$1 == "listening" && $2 == p { print $3; exit }' "$WORK/$1.out"; }

# bench ARGS...: runs the load generator, its output to the log and stderr;
# the `MD|` rows to $WORK/rows.
bench() {
    local out
    out=$("${BENCH_CPU[@]}" "$REL/bench" "$@" 2>&1) || true
    printf '%s\n' "$out" >>"$LOG"
    printf '%s\n' "$out" | grep -v '^MD|' >&2 || true
    printf '%s\n' "$out" | grep '^MD|' | sed 's/^MD| */| /' | tee -a "$WORK/rows" || true
}

: >"$WORK/rows"
STARTED=$(date +%s)
LOAD_ROWS="$WORK/load.rows"
: >"$LOAD_ROWS"

if wants load || wants latency; then
    say "starting a2a serve --agent echo and the ceilings"
    # shellcheck disable=SC2086
    start a2a "$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 \
        --grpc-addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 $SERVE_ARGS
    A2A_PID=$LAST_PID
    J=$(url a2a jsonrpc)
    G=$(url a2a grpc)
    R=$(url a2a http+json)
    FX="$WORK/fixtures"
    for t in jsonrpc-send jsonrpc-stream rest-send rest-stream grpc-send grpc-stream; do
        case $t in jsonrpc*) u=$J ;; rest*) u=$R ;; grpc*) u=$G ;; esac
        for r in task message; do
            "$REL/bench" --mode capture --target "$t" --reply "$r" --url "$u" --out-dir "$FX" >>"$LOG"
        done
    done
    start ceiling-axum "$REL/ceiling-axum" --fixtures "$FX"
    AX_PID=$LAST_PID
    CJ=$(url ceiling-axum jsonrpc)
    CR=$(url ceiling-axum http+json)
    start ceiling-tonic "$REL/ceiling-tonic" --fixtures "$FX"
    TN_PID=$LAST_PID
    CG=$(url ceiling-tonic grpc)
    COMMON=(--connections "$CONNECTIONS" --duration "$DURATION" --rounds "$ROUNDS"
        --warmup "$WARMUP" --grpc-channels "$GRPC_CHANNELS")

    # scenario NAME GOAL OURS_TARGET OURS_URL REPLY REF_TARGET REF_URL REF_PID
    scenario() {
        local name=$1 goal=$2 t=$3 u=$4 reply=$5 rt=$6 ru=$7 rpid=$8
        local g=()
        [[ "$goal" != - ]] && g=(--goal "$goal")
        say "$name"
        bench --target "$t" --url "$u" --reply "$reply" --server-pid "$A2A_PID" \
            --compare "--target $rt --url $ru --reply $reply --server-pid $rpid --label ceiling" \
            "${COMMON[@]}" "${g[@]}" --p99-goal-ms 5 --md-row "$name" | tee -a "$LOAD_ROWS" >/dev/null
    }
    if wants load; then
        scenario "JSON-RPC message/send → Task" 0.5 jsonrpc-send "$J" task jsonrpc-send "$CJ" "$AX_PID"
        scenario "JSON-RPC message/send → Message" 0.6 jsonrpc-send "$J" message jsonrpc-send "$CJ" "$AX_PID"
        scenario "JSON-RPC message/stream → Task (vs unary ceiling)" 0.4 jsonrpc-stream "$J" task jsonrpc-send "$CJ" "$AX_PID"
        scenario "JSON-RPC message/stream → Task (vs SSE ceiling, same events)" - jsonrpc-stream "$J" task jsonrpc-stream "$CJ" "$AX_PID"
        scenario "REST message:send → Task" 0.5 rest-send "$R" task rest-send "$CR" "$AX_PID"
        scenario "REST message:stream → Task (vs SSE ceiling)" - rest-stream "$R" task rest-stream "$CR" "$AX_PID"
        scenario "gRPC SendMessage → Task" 0.5 grpc-send "$G" task grpc-send "$CG" "$TN_PID"
        scenario "gRPC SendStreamingMessage → Task (vs tonic stream ceiling)" - grpc-stream "$G" task grpc-stream "$CG" "$TN_PID"
    fi
    if wants latency; then
        rate=$LAT_RATE
        if [[ "$rate" == auto ]]; then
            rate=$(awk -F'|' 'NR == 1 { gsub(/ /, "", $3); print int($3 / 4) }' "$LOAD_ROWS")
            [[ -z "$rate" || "$rate" == 0 ]] && rate=2000
        fi
        say "latency: JSON-RPC message/send at $rate req/s over $CONNECTIONS connections (open loop)"
        bench --target jsonrpc-send --url "$J" --server-pid "$A2A_PID" --rate "$rate" \
            --compare "--target jsonrpc-send --url $CJ --server-pid $AX_PID --label ceiling" \
            "${COMMON[@]}" --p99-goal-ms 5 --md-row "JSON-RPC message/send → Task, $rate req/s open loop" \
            | tee -a "$LOAD_ROWS" >/dev/null
    fi
    stop "$TN_PID"
    stop "$AX_PID"
    stop "$A2A_PID"
fi

MEM_ROWS="$WORK/mem.rows"
: >"$MEM_ROWS"
if wants fill; then
    say "memory per retained task: $FILL_TASKS tasks into a fresh server"
    # shellcheck disable=SC2086
    start fill "$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 --no-grpc --no-rest $SERVE_ARGS
    bench --mode fill --url "$(url fill jsonrpc)" --server-pid "$LAST_PID" --connections 16 \
        --tasks "$FILL_TASKS" --warmup-tasks 5000 --md-row "memory per retained small task" >>"$MEM_ROWS"
    stop "$LAST_PID"
fi

IDLE_ROWS="$WORK/idle.rows"
: >"$IDLE_ROWS"
if wants idle; then
    for method in resubscribe stream; do
        say "$SUBSCRIBERS idle SSE subscribers ($method)"
        # shellcheck disable=SC2086
        start idle "$REL/a2a" serve --store memory --agent demo --jsonrpc-addr 127.0.0.1:0 --no-grpc --no-rest $SERVE_ARGS
        bench --mode idle-sse --idle-method "$method" --url "$(url idle jsonrpc)" --server-pid "$LAST_PID" \
            --subscribers "$SUBSCRIBERS" --hold "$HOLD" \
            --md-row "$SUBSCRIBERS idle subscribers, $method" >>"$IDLE_ROWS"
        stop "$LAST_PID"
    done
fi

SOAK_ROWS="$WORK/soak.rows"
: >"$SOAK_ROWS"
if wants soak; then
    say "soak: $SOAK_RATE req/s for $SOAK_MINUTES min${SOAK_SERVE_ARGS:+ (a2a serve $SOAK_SERVE_ARGS)}"
    # shellcheck disable=SC2086
    start soak "$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 --no-grpc --no-rest $SERVE_ARGS $SOAK_SERVE_ARGS
    bench --mode soak --url "$(url soak jsonrpc)" --server-pid "$LAST_PID" --rate "$SOAK_RATE" \
        --connections 16 --duration "${SOAK_MINUTES}m" --sample-every 10s \
        --md-row "soak${SOAK_SERVE_ARGS:+ ($SOAK_SERVE_ARGS)}" >>"$SOAK_ROWS"
    stop "$LAST_PID"
fi

ELAPSED=$(($(date +%s) - STARTED))
{
    echo "# A2A benchmark report"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average before: $(cut -d' ' -f1-3 /proc/loadavg); git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+dirty'); pinned: $([[ ${#SERVER_CPU[@]} -gt 0 ]] && echo yes || echo no); suite ${ELAPSED} s."
    echo
    echo "Shared, noisy machine: the ratios (both sides measured in the same run, alternately) are the figures to read; absolute numbers are not."
    if [[ -s "$LOAD_ROWS" ]]; then
        echo
        echo "## Throughput and latency ($CONNECTIONS connections, $DURATION per side in $ROUNDS alternating slices)"
        echo
        echo "| scenario | A2A req/s | ceiling req/s | ratio (per-slice range) | goal | met | server CPU µs/req A2A / ceiling (ratio) | A2A p50 / p99 ms | ceiling p99 ms | errors |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        cat "$LOAD_ROWS"
    fi
    if [[ -s "$MEM_ROWS" ]]; then
        echo
        echo "## Memory per retained task (echo agent, in-memory store)"
        echo
        echo "| measurement | tasks | RSS growth / task | goal | met | detail | errors |"
        echo "|---|---|---|---|---|---|---|"
        cat "$MEM_ROWS"
    fi
    if [[ -s "$IDLE_ROWS" ]]; then
        echo
        echo "## Idle SSE subscribers (demo agent, \`countdown 600\`: one status update per second per task)"
        echo
        echo "| measurement | open | errors | server memory per subscriber | fan-out of the final event | met |"
        echo "|---|---|---|---|---|---|"
        cat "$IDLE_ROWS"
    fi
    if [[ -s "$SOAK_ROWS" ]]; then
        echo
        echo "## Soak (RSS sampled every 10 s; flat = the second half grows < 5 % and < 64 B/request)"
        echo
        echo "| run | load | RSS | goal | met | errors |"
        echo "|---|---|---|---|---|---|"
        cat "$SOAK_ROWS"
        echo
        echo '```text'
        sed -n '/^soak:/,/^soak: [0-9]/p' "$LOG"
        echo '```'
    fi
    echo
    echo "Full output: $LOG"
} | tee "$REPORT"
say "report written to $REPORT (suite ${ELAPSED} s)"

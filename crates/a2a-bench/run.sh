#!/usr/bin/env bash
# The A2A benchmark suite (issue 7). Loopback only (127.0.0.1), bounded in time.
#
#   crates/a2a-bench/run.sh                    # ~6 minutes after the build
#   SOAK_MINUTES=10 crates/a2a-bench/run.sh    # the documented run: < 15 minutes after the build
#
# Needs only Rust, bash and coreutils (no wrk). Builds the release
# binaries, starts every server on 127.0.0.1 port 0 (reading its
# `listening` lines), captures the real server's answers as the ceilings'
# fixed responses, then:
#   load     closed loop at saturation: each scenario's A2A server and its
#            ceiling alternately in slices (their ratio, p50/p99 at saturation)
#   latency  open loop: each goal scenario at a fixed rate (LAT_FRACTION of
#            its closed-loop A2A rate), latency from the intended send time
#   fill     memory per retained small task (memory store)
#   idle     SUBSCRIBERS idle SSE streams held open (echo agent, "hold": true)
#   soak     a fixed rate for SOAK_MINUTES with a retention policy, RSS sampled
# and writes a Markdown report to stdout and to $TARGET_DIR/bench-report.md.
#
# | env | default | what |
# |---|---|---|
# | TARGET_DIR | $ROOT/target | cargo target directory (binaries in $TARGET_DIR/release; the report there too) |
# | DURATION | 6s | closed loop: measured time per target per scenario (split in ROUNDS slices) |
# | ROUNDS | 6 | alternating slices per target |
# | WARMUP | 1s | warm-up slice per target |
# | CONNECTIONS | 64 | concurrent connections (gRPC: concurrent calls over GRPC_CHANNELS HTTP/2 connections) |
# | GRPC_CHANNELS | 8 | HTTP/2 connections of the gRPC load |
# | LAT_DURATION | 4s | open loop: measured time per target per scenario (2 slices each) |
# | LAT_FRACTION | 0.5 | open-loop rate as a fraction of the scenario's closed-loop A2A rate |
# | LAT_RATE | (auto) | a fixed open-loop rate (req/s) for every latency scenario instead |
# | FILL_TASKS | 50000 | tasks of the memory-per-task measurement (after 5000 warm-up tasks) |
# | SUBSCRIBERS | 10000 | idle SSE subscribers |
# | HOLD | 5s | how long they are held open once all are open |
# | IDLE_METHODS | resubscribe stream | how they subscribe (see bench --help) |
# | SOAK_MINUTES | 2 | soak duration (10 for the documented run) |
# | SOAK_RATE | 1000 | soak requests/s |
# | SOAK_SERVE_ARGS | --retain-tasks 10000 | extra `a2a serve` flags of the soak server |
# | SERVE_ARGS | (none) | extra `a2a serve` flags for every A2A server |
# | PIN | 0 | 1: pin the servers to CPU 1 and the load generator to CPU 0 (taskset) |
# | SKIP_BUILD | 0 | 1: use the binaries already in $TARGET_DIR/release |
# | ONLY | (all) | space-separated subset: load latency fill idle soak |
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET_DIR=${TARGET_DIR:-$ROOT/target}
REL="$TARGET_DIR/release"
DURATION=${DURATION:-6s}
ROUNDS=${ROUNDS:-6}
WARMUP=${WARMUP:-1s}
CONNECTIONS=${CONNECTIONS:-64}
GRPC_CHANNELS=${GRPC_CHANNELS:-8}
LAT_DURATION=${LAT_DURATION:-4s}
LAT_FRACTION=${LAT_FRACTION:-0.5}
LAT_RATE=${LAT_RATE:-}
FILL_TASKS=${FILL_TASKS:-50000}
SUBSCRIBERS=${SUBSCRIBERS:-10000}
HOLD=${HOLD:-5s}
IDLE_METHODS=${IDLE_METHODS:-resubscribe stream}
SOAK_MINUTES=${SOAK_MINUTES:-2}
SOAK_RATE=${SOAK_RATE:-1000}
SOAK_SERVE_ARGS=${SOAK_SERVE_ARGS---retain-tasks 10000}
SERVE_ARGS=${SERVE_ARGS:-}
PIN=${PIN:-0}
SKIP_BUILD=${SKIP_BUILD:-0}
ONLY=${ONLY:-load latency fill idle soak}
mkdir -p "$TARGET_DIR"
REPORT="$TARGET_DIR/bench-report.md"
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

# 10k subscribers need 10k descriptors in the server and in the client
# (both inherit this shell's limit).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if (($(ulimit -n) < SUBSCRIBERS + 256)); then
    echo "warning: open-file limit $(ulimit -n) is below $SUBSCRIBERS subscribers + slack" >&2
fi

if [[ "$SKIP_BUILD" != 1 ]]; then
    say "building release binaries (a2a, bench, ceiling-axum, ceiling-tonic) into $TARGET_DIR"
    (cd "$ROOT" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -p a2a-server -p a2a-bench --bins) >&2
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
    # Bounded even if something hangs: LIMIT seconds (default 600).
    out=$(timeout "${LIMIT:-600}" "${BENCH_CPU[@]}" "$REL/bench" "$@" 2>&1) || true
    printf '%s\n' "$out" >>"$LOG"
    printf '%s\n' "$out" | grep -v '^MD|' >&2 || true
    printf '%s\n' "$out" | grep '^MD|' | sed 's/^MD| */| /' | tee -a "$WORK/rows" || true
}

: >"$WORK/rows"
STARTED=$(date +%s)
LOADAVG=$(cut -d" " -f1-3 /proc/loadavg)
LOAD_ROWS="$WORK/load.rows"
: >"$LOAD_ROWS"

LAT_ROWS="$WORK/lat.rows"
: >"$LAT_ROWS"
declare -A RATE=()

if wants load || wants latency; then
    say "starting a2a serve --agent echo and the ceilings"
    # shellcheck disable=SC2086
    start a2a "$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 \
        --grpc-addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 $SERVE_ARGS
    A2A_PID=$LAST_PID
    J=$(url a2a jsonrpc)
    G=$(url a2a grpc)
    R=$(url a2a http+json)
    # The ceilings answer with the real server's bodies, captured here.
    # Streams ask for a `working` status (metadata "working": true): Task,
    # working, artifact, completed, the shape issue 7 names.
    FX="$WORK/fixtures"
    for t in jsonrpc-send jsonrpc-stream rest-send rest-stream grpc-send grpc-stream; do
        case $t in jsonrpc*) u=$J ;; rest*) u=$R ;; grpc*) u=$G ;; esac
        w=()
        [[ $t == *stream ]] && w=(--working)
        for r in task message; do
            timeout 60 "$REL/bench" --mode capture --target "$t" --reply "$r" --url "$u" --out-dir "$FX" "${w[@]}" >>"$LOG"
        done
    done
    start ceiling-axum "$REL/ceiling-axum" --fixtures "$FX"
    AX_PID=$LAST_PID
    CJ=$(url ceiling-axum jsonrpc)
    CR=$(url ceiling-axum http+json)
    start ceiling-tonic "$REL/ceiling-tonic" --fixtures "$FX"
    TN_PID=$LAST_PID
    CG=$(url ceiling-tonic grpc)

    # The scenarios: KEY|NAME|GOAL|TARGET|URL|REPLY|REF_TARGET|REF_URL|REF_PID|LATENCY(1: open-loop run too)
    SCENARIOS=(
        "send-task|JSON-RPC message/send → Task|0.5|jsonrpc-send|$J|task|jsonrpc-send|$CJ|$AX_PID|1"
        "send-message|JSON-RPC message/send → Message|0.6|jsonrpc-send|$J|message|jsonrpc-send|$CJ|$AX_PID|1"
        "stream|JSON-RPC message/stream → Task, 4 events (vs unary ceiling)|0.4|jsonrpc-stream|$J|task|jsonrpc-send|$CJ|$AX_PID|1"
        "stream-sse|JSON-RPC message/stream → Task (vs SSE ceiling, same 4 events)|-|jsonrpc-stream|$J|task|jsonrpc-stream|$CJ|$AX_PID|0"
        "rest-send|REST message:send → Task|0.5|rest-send|$R|task|rest-send|$CR|$AX_PID|1"
        "rest-stream|REST message:stream → Task (vs SSE ceiling)|-|rest-stream|$R|task|rest-stream|$CR|$AX_PID|0"
        "grpc-send|gRPC SendMessage → Task|0.5|grpc-send|$G|task|grpc-send|$CG|$TN_PID|1"
        "grpc-stream|gRPC SendStreamingMessage → Task (vs tonic stream ceiling)|-|grpc-stream|$G|task|grpc-stream|$CG|$TN_PID|0"
    )
    common=(--connections "$CONNECTIONS" --grpc-channels "$GRPC_CHANNELS" --server-pid "$A2A_PID")
    # flags TARGET: the extra request flags of a target.
    flags() { [[ $1 == *stream ]] && echo --working || true; }

    if wants load; then
        for sc in "${SCENARIOS[@]}"; do
            IFS='|' read -r key name goal t u reply rt ru rpid _ <<<"$sc"
            g=()
            [[ "$goal" != - ]] && g=(--goal "$goal")
            say "closed loop: $name"
            # shellcheck disable=SC2046
            row=$(bench --target "$t" --url "$u" --reply "$reply" $(flags "$t") "${common[@]}" \
                --compare "--target $rt --url $ru --reply $reply --server-pid $rpid --label ceiling $(flags "$rt")" \
                --duration "$DURATION" --rounds "$ROUNDS" --warmup "$WARMUP" \
                "${g[@]}" --p99-goal-ms 5 --md-row "$name")
            printf '%s\n' "$row" >>"$LOAD_ROWS"
            # The A2A req/s (3rd field of the row) sets the open-loop rate.
            RATE[$key]=$(printf '%s\n' "$row" | awk -F'|' 'NR == 1 { split($3, a, " "); print a[1] + 0 }')
        done
    fi
    if wants latency; then
        for sc in "${SCENARIOS[@]}"; do
            IFS='|' read -r key name goal t u reply rt ru rpid lat <<<"$sc"
            [[ "$lat" == 1 ]] || continue
            rate=$LAT_RATE
            if [[ -z "$rate" ]]; then
                rate=$(awk -v r="${RATE[$key]:-0}" -v f="$LAT_FRACTION" 'BEGIN { printf "%d", r * f }')
                ((rate > 0)) || rate=2000
            fi
            say "open loop at $rate req/s: $name"
            # shellcheck disable=SC2046
            bench --target "$t" --url "$u" --reply "$reply" $(flags "$t") "${common[@]}" --rate "$rate" \
                --compare "--target $rt --url $ru --reply $reply --server-pid $rpid --label ceiling $(flags "$rt")" \
                --duration "$LAT_DURATION" --rounds 2 --warmup 1s \
                --p99-goal-ms 5 --md-row "$name" >>"$LAT_ROWS"
        done
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
    for method in $IDLE_METHODS; do
        say "$SUBSCRIBERS idle SSE subscribers ($method)"
        # shellcheck disable=SC2086
        start idle "$REL/a2a" serve --store memory --agent echo --jsonrpc-addr 127.0.0.1:0 --no-grpc --no-rest $SERVE_ARGS
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
    LIMIT=$(awk -v m="$SOAK_MINUTES" 'BEGIN { printf "%d", m * 60 + 300 }') bench --mode soak --url "$(url soak jsonrpc)" --server-pid "$LAST_PID" --rate "$SOAK_RATE" \
        --connections 16 --duration "${SOAK_MINUTES}m" --sample-every 10s \
        --md-row "soak${SOAK_SERVE_ARGS:+ ($SOAK_SERVE_ARGS)}" >>"$SOAK_ROWS"
    stop "$LAST_PID"
fi

ELAPSED=$(($(date +%s) - STARTED))
{
    echo "# A2A benchmark report"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average before: $LOADAVG, after: $(cut -d' ' -f1-3 /proc/loadavg); git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+dirty'); pinned: $([[ ${#SERVER_CPU[@]} -gt 0 ]] && echo yes || echo no); suite ${ELAPSED} s."
    echo
    echo "Shared, noisy machine: the ratios (both sides measured in the same run, alternately) are the figures to read; absolute numbers are not."
    if [[ -s "$LOAD_ROWS" ]]; then
        echo
        echo "## Throughput: closed loop at saturation ($CONNECTIONS connections, $DURATION per side in $ROUNDS alternating slices)"
        echo
        echo "Ratio = A2A req/s ÷ ceiling req/s over the whole run (range: per-round ratios). The p50/p99 here are latencies *at saturation* (every connection always busy); the latency goal is judged in the open-loop table below."
        echo
        echo "| scenario | A2A req/s | ceiling req/s | ratio (per-round range) | goal | met | server CPU µs/req A2A / ceiling (ratio) | A2A p50 / p99 ms at saturation | ceiling p99 ms | errors |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        cat "$LOAD_ROWS"
    fi
    if [[ -s "$LAT_ROWS" ]]; then
        echo
        echo "## Latency: open loop at a fixed rate ($CONNECTIONS connections, $LAT_DURATION per side in 2 alternating slices)"
        echo
        echo "Each connection sends on a fixed schedule (rate: ${LAT_RATE:-$LAT_FRACTION × the closed-loop A2A req/s of the scenario}); latency counts from the *intended* send time (no coordinated omission; it includes the load generator's timer granularity, up to ~1 ms). Service time counts from the actual send. Met: p99 < 5 ms, ≥ 99 % of the scheduled requests answered, no errors."
        echo
        echo "| scenario | intended req/s | A2A achieved req/s | A2A p50 / p90 / p99 / max ms | A2A service p99 ms | ceiling p50 / p99 ms (same rate) | goal | met | errors / unsent |"
        echo "|---|---|---|---|---|---|---|---|---|"
        cat "$LAT_ROWS"
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
        echo "## Idle SSE subscribers (echo agent, metadata \"hold\": true: tasks stay \`working\` and silent until canceled)"
        echo
        echo "resubscribe: one held task, every subscriber a \`tasks/resubscribe\` stream on it (the cost of a subscriber). stream: every subscriber a \`message/stream\` starting a held task of its own (subscriber + task + running execution). Memory = server RSS growth from before the first open to all open, ÷ subscribers."
        echo
        echo "| measurement | open | errors | server memory per subscriber | fan-out of the final event | met |"
        echo "|---|---|---|---|---|---|"
        cat "$IDLE_ROWS"
    fi
    if [[ -s "$SOAK_ROWS" ]]; then
        echo
        echo "## Soak (a fixed rate, RSS sampled every 10 s; flat = the second half grows < 5 % and < 64 B/request)"
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

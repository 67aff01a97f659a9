#!/usr/bin/env bash
# Interop tests against the official A2A Python SDK (a2a-sdk 0.3.26).
#
#   tests/interop/run.sh [--bin PATH] [--grpc] [--rest] [--no-selftest] [--selftest-only]
#
#   --bin PATH       use this `a2a` binary instead of `cargo build -p a2a-server --bin a2a`
#   --grpc           also start our gRPC listener and run grpc_client_test.py against it
#   --rest           also start our HTTP+JSON listener and run rest_client_test.py against it
#   --no-selftest    skip python_agent_selftest.py (the SDK peer tested by the SDK clients)
#   --selftest-only  only python_agent_selftest.py (no cargo, no Rust server)
#
# Steps: setup.sh (venv + pinned SDK), build `a2a`, start
#   a2a serve --agent demo --jsonrpc-addr 127.0.0.1:0 --store memory {--grpc-addr 127.0.0.1:0|--no-grpc} {--rest-addr 127.0.0.1:0|--no-rest}
# read its `listening <proto> <url>` lines from stdout (30 s timeout), run the
# client test scripts against those URLs, stop the server, run the selftest.
# Every script prints `RESULT <script> passed=N failed=M`; the last line of this
# script is the sum: `N passed, M failed`. Exit status is non-zero on any failure.
#
# Adding a script for a new listener: add a flag, the listener's serve flag in
# SERVE_ARGS/WANT, and one `run_script` line (see the `--grpc` handling).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="$HERE/.venv/bin/python"
STARTUP_TIMEOUT=30
SCRIPT_TIMEOUT=300

BIN=""
WITH_GRPC=0
WITH_REST=0
SELFTEST=1
OURS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN="${2:?--bin needs a path}"; shift 2 ;;
    --bin=*) BIN="${1#--bin=}"; shift ;;
    --grpc) WITH_GRPC=1; shift ;;
    --rest) WITH_REST=1; shift ;;
    --no-selftest) SELFTEST=0; shift ;;
    --selftest-only) OURS=0; SELFTEST=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

PASSED=0
FAILED=0
LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/a2a-interop.XXXXXX")"
SERVER_PID=""
DRAIN_PID=""

log() { echo "run.sh: $*"; }

# Prints the summary as the very last line and exits (non-zero on any failure).
finish() {
  cleanup
  trap - EXIT
  echo "${PASSED} passed, ${FAILED} failed"
  [ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
  exit $?
}

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SERVER_PID" 2>/dev/null && { log "server did not stop on SIGTERM; SIGKILL"; kill -KILL "$SERVER_PID" 2>/dev/null; }
    wait "$SERVER_PID" 2>/dev/null
  fi
  SERVER_PID=""
  if [ -n "$DRAIN_PID" ]; then kill "$DRAIN_PID" 2>/dev/null; wait "$DRAIN_PID" 2>/dev/null; DRAIN_PID=""; fi
  exec 3<&- 2>/dev/null || true
}

cleanup() {
  stop_server
  if [ "$FAILED" -eq 0 ]; then rm -rf "$LOG_DIR"; else log "logs kept in $LOG_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_script NAME ARGS...: runs tests/interop/NAME.py, shows its output, adds its
# RESULT counts (a script that dies without a RESULT line counts as 1 failure).
run_script() {
  local name="$1"; shift
  local out="$LOG_DIR/$name.out"
  log "=== $name $*"
  timeout --kill-after=10 "$SCRIPT_TIMEOUT" "$PY" "$HERE/$name.py" "$@" 2>"$LOG_DIR/$name.err" | tee "$out"
  local rc=${PIPESTATUS[0]}
  local res
  res="$(grep -E '^RESULT [^ ]+ passed=[0-9]+ failed=[0-9]+' "$out" | tail -n 1)"
  if [ -n "$res" ]; then
    local p f
    p="$(sed -E 's/.* passed=([0-9]+).*/\1/' <<<"$res")"
    f="$(sed -E 's/.* failed=([0-9]+).*/\1/' <<<"$res")"
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then FAILED=$((FAILED + 1)); log "$name exited $rc with no failed step"; fi
  else
    FAILED=$((FAILED + 1))
    log "$name exited $rc without a RESULT line"
  fi
  if [ "$rc" -ne 0 ]; then
    log "$name stderr (tail):"; tail -n 60 "$LOG_DIR/$name.err" >&2
  fi
}

# ---- 1. Python side ------------------------------------------------------------
if ! "$HERE/setup.sh"; then
  log "setup.sh failed"; FAILED=$((FAILED + 1)); finish
fi

# ---- 2. our server -----------------------------------------------------------------
# A build/start failure counts as one failure; the selftest below still runs.
test_our_server() {
  if [ -z "$BIN" ]; then
    log "building: cargo build -p a2a-server --bin a2a"
    if ! (cd "$ROOT" && cargo build -p a2a-server --bin a2a); then
      log "cargo build failed"; FAILED=$((FAILED + 1)); return
    fi
    local target_dir
    target_dir="$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null)"
    BIN="${target_dir:-$ROOT/target}/debug/a2a"
  fi
  [ -x "$BIN" ] || { log "no executable at $BIN"; FAILED=$((FAILED + 1)); return; }

  local serve_args=(serve --agent demo --jsonrpc-addr 127.0.0.1:0 --store memory)
  local want=(jsonrpc)
  # Without --grpc/--rest the binding is turned off, so the server never
  # binds the fixed default ports (50051, 8081).
  if [ "$WITH_GRPC" -eq 1 ]; then serve_args+=(--grpc-addr 127.0.0.1:0); want+=(grpc); else serve_args+=(--no-grpc); fi
  if [ "$WITH_REST" -eq 1 ]; then serve_args+=(--rest-addr 127.0.0.1:0); want+=(http+json); else serve_args+=(--no-rest); fi

  log "starting: $BIN ${serve_args[*]}"
  mkfifo "$LOG_DIR/server.fifo"
  "$BIN" "${serve_args[@]}" >"$LOG_DIR/server.fifo" 2>"$LOG_DIR/server.err" &
  SERVER_PID=$!
  exec 3<"$LOG_DIR/server.fifo"

  # Read stdout until every wanted `listening <proto> <url>` line arrived.
  local -A url=()
  local deadline=$((SECONDS + STARTUP_TIMEOUT)) line p missing remaining
  while :; do
    missing=0
    for p in "${want[@]}"; do [ -n "${url[$p]:-}" ] || missing=1; done
    [ "$missing" -eq 0 ] && break
    remaining=$((deadline - SECONDS))
    if [ "$remaining" -le 0 ]; then log "timeout: no listening line(s) for ${want[*]} after ${STARTUP_TIMEOUT}s"; break; fi
    if ! IFS= read -r -t "$remaining" line <&3; then
      log "server stdout closed or timed out before all listening lines (wanted: ${want[*]})"; break
    fi
    echo "  server: $line"
    echo "$line" >>"$LOG_DIR/server.out"
    if [[ "$line" =~ ^listening\ (jsonrpc|grpc|http\+json)\ ([^[:space:]]+) ]]; then
      url[${BASH_REMATCH[1]}]="${BASH_REMATCH[2]}"
    fi
  done
  # Keep draining the server's stdout so it can never block on a full pipe.
  cat <&3 >>"$LOG_DIR/server.out" &
  DRAIN_PID=$!

  for p in "${want[@]}"; do
    if [ -z "${url[$p]:-}" ]; then
      FAILED=$((FAILED + 1))
      log "server stderr (tail):"; tail -n 40 "$LOG_DIR/server.err" >&2
      stop_server; return
    fi
  done

  run_script jsonrpc_client_test "${url[jsonrpc]}"
  [ "$WITH_GRPC" -eq 1 ] && run_script grpc_client_test "${url[grpc]}" --card-url "${url[jsonrpc]}"
  [ "$WITH_REST" -eq 1 ] && run_script rest_client_test "${url[http+json]}" --card-url "${url[jsonrpc]}"
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    log "our server died during the tests"; FAILED=$((FAILED + 1))
    tail -n 40 "$LOG_DIR/server.err" >&2
  fi
  stop_server
}

[ "$OURS" -eq 1 ] && test_our_server

# ---- 3. the SDK peer (python_agent.py) checked by the SDK's own clients ---------------
[ "$SELFTEST" -eq 1 ] && run_script python_agent_selftest

finish

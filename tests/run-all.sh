#!/usr/bin/env bash
# The project's one test command (README "Run the tests"; .ci/run calls it).
#
# On a fresh machine it installs and starts what the tests need, then runs:
#   0. tests/interop/setup.sh: the interop venv with the official Python SDK
#      (a2a-sdk==0.3.26); A2A_INTEROP_PYTHON points the cargo tests at it, so
#      the root tests grpc_python_peer and rest_python_peer run against the
#      SDK's own servers instead of being skipped,
#   0b. tests/postgres/start.sh: a PostgreSQL for the store tests (uses
#      A2A_TEST_POSTGRES_URL or a server on 127.0.0.1:5432 if one answers,
#      else installs/initdb's one under target/pgdata and stops it at exit),
#   1. cargo fmt --check and cargo clippy -D warnings,
#   2. cargo test --workspace --all-features (unit, wire, conformance,
#      codegen and Python-peer tests),
#   3. the interop suite: the SDK's JSON-RPC, gRPC and REST clients drive our
#      `a2a serve` (tests/interop/run.sh --grpc --rest), then the SDK peer
#      selftest.
# Set A2A_SKIP_LINT=1 to skip step 1 while iterating.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "interop venv with the official Python SDK (tests/interop/setup.sh)"
bash tests/interop/setup.sh
export A2A_INTEROP_PYTHON="$PWD/tests/interop/.venv/bin/python"

step "PostgreSQL for the store tests (tests/postgres/start.sh)"
A2A_TEST_POSTGRES_URL="$(bash tests/postgres/start.sh | tail -n1)"
export A2A_TEST_POSTGRES_URL
if [ "${A2A_KEEP_POSTGRES:-0}" != 1 ]; then trap 'bash tests/postgres/stop.sh' EXIT; fi

if [ "${A2A_SKIP_LINT:-0}" != 1 ]; then
  step "cargo fmt --check"
  cargo fmt --all -- --check
  step "cargo clippy --all-targets --all-features -D warnings"
  cargo clippy --workspace --all-targets --all-features -- -D warnings
fi

step "cargo test --workspace --all-features (A2A_INTEROP_PYTHON=$A2A_INTEROP_PYTHON)"
cargo test --workspace --all-features

# The binary tests of a2a-server built target/debug/a2a with the same
# features just now; building it again with other features would only
# recompile it.
step "interop with the official Python SDK (a2a-sdk==0.3.26): JSON-RPC, gRPC, REST"
bash tests/interop/run.sh --bin target/debug/a2a --grpc --rest

printf '\nrun-all.sh: all green in %ss\n' "$SECONDS"

#!/usr/bin/env bash
# The project's one test command (README "Run the tests"; .ci/run calls it).
#
# On a fresh machine it installs and starts what the tests need, then runs:
#   1. cargo fmt --check and cargo clippy -D warnings,
#   2. cargo test --workspace (unit, wire, conformance and codegen tests),
#   3. the interop suite against the official Python SDK (tests/interop/run.sh).
# Set A2A_SKIP_LINT=1 to skip step 1 while iterating.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

if [ "${A2A_SKIP_LINT:-0}" != 1 ]; then
  step "cargo fmt --check"
  cargo fmt --all -- --check
  step "cargo clippy --all-targets --all-features -D warnings"
  cargo clippy --workspace --all-targets --all-features -- -D warnings
fi

step "cargo test --workspace"
cargo test --workspace --all-features

step "interop with the official Python SDK (a2a-sdk==0.3.26)"
cargo build -p a2a-server --bin a2a
bash tests/interop/run.sh --bin target/debug/a2a

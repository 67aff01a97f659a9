#!/usr/bin/env bash
# Stops the PostgreSQL cluster that tests/postgres/start.sh started under
# target/pgdata (or $A2A_PGDATA); never a server it only found. With
# --purge, also deletes the data directory. Does nothing when it is not
# running.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PGDATA="${A2A_PGDATA:-$ROOT/target/pgdata}"

log() { printf 'postgres/stop.sh: %s\n' "$*" >&2; }

if [ ! -f "$PGDATA/PG_VERSION" ]; then
  log "no cluster in $PGDATA"
  exit 0
fi

pg_ctl_bin() {
  local d
  d="$(pg_config --bindir 2>/dev/null || true)"
  if [ -x "$d/pg_ctl" ]; then echo "$d/pg_ctl"; return; fi
  d="/usr/lib/postgresql/$(cat "$PGDATA/PG_VERSION")/bin"
  if [ -x "$d/pg_ctl" ]; then echo "$d/pg_ctl"; return; fi
  command -v pg_ctl
}

if [ -f "$PGDATA/postmaster.pid" ]; then
  if [ "$(id -u)" = 0 ]; then
    as_owner() { runuser -u "$(stat -c %U "$PGDATA")" -- "$@"; }
  else
    as_owner() { "$@"; }
  fi
  log "stopping the cluster in $PGDATA"
  as_owner "$(pg_ctl_bin)" -D "$PGDATA" -m fast -w -t 60 stop >&2 \
    || log "pg_ctl stop failed (already stopped?)"
else
  log "the cluster in $PGDATA is not running"
fi

if [ "${1:-}" = --purge ]; then
  log "deleting $PGDATA"
  rm -rf "$PGDATA"
fi

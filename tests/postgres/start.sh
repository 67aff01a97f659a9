#!/usr/bin/env bash
# Finds or starts a PostgreSQL server for the tests and prints its URL on the
# last line of stdout (everything else goes to stderr):
#
#   export A2A_TEST_POSTGRES_URL="$(bash tests/postgres/start.sh | tail -n1)"
#
# Idempotent; tries, in order:
#   1. $A2A_TEST_POSTGRES_URL, when set and it answers: printed as is.
#   2. The cluster this script started before (under target/pgdata), started
#      again when it is down.
#   3. A server already answering on 127.0.0.1:5432 that lets us in as the
#      superuser `postgres` (trust, password `postgres`, or peer
#      authentication through the `postgres` system user when run as root):
#      the database (and, with peer authentication, a role) `a2a_test` is
#      created in it.
#   4. Its own cluster: installs PostgreSQL with apt-get when missing (as
#      root), runs `initdb` under target/pgdata as the `postgres` system user
#      (PostgreSQL refuses to run as root; the user is created if missing),
#      starts it on 127.0.0.1 (port 5432 when free, else a free one), waits
#      for it (bounded) and creates the database.
#
# tests/postgres/stop.sh stops the cluster of 2/4 (never a server it found).
#
# Environment: A2A_PGDATA (data directory, default target/pgdata),
# A2A_TEST_POSTGRES_DB (database name, default a2a_test).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PGDATA="${A2A_PGDATA:-$ROOT/target/pgdata}"
DB="${A2A_TEST_POSTGRES_DB:-a2a_test}"
export PGCONNECT_TIMEOUT=3

log() { printf 'postgres/start.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

case "$DB" in *[!a-z0-9_]*) die "A2A_TEST_POSTGRES_DB must be [a-z0-9_]: $DB" ;; esac

# The directory of the server binaries (initdb, pg_ctl, postgres), or "".
server_bindir() {
  local d
  if command -v pg_config >/dev/null 2>&1; then
    d="$(pg_config --bindir 2>/dev/null || true)"
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return; fi
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return; fi
  done
  d="$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")"
  if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return; fi
  # Symlinks such as /usr/local/bin/initdb: their target's directory.
  if [ -x "$d/initdb" ]; then
    d="$(dirname "$(readlink -f "$d/initdb")")"
    if [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return; fi
  fi
  echo ""
}

install_postgres() {
  [ "$(id -u)" = 0 ] || die "PostgreSQL is not installed and this is not root: install it (apt-get install postgresql) or set A2A_TEST_POSTGRES_URL"
  command -v apt-get >/dev/null 2>&1 || die "PostgreSQL is not installed and there is no apt-get: set A2A_TEST_POSTGRES_URL"
  log "installing PostgreSQL (apt-get install postgresql)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql postgresql-client >&2
}

BINDIR="$(server_bindir)"
if ! command -v psql >/dev/null 2>&1 && [ ! -x "$BINDIR/psql" ]; then
  install_postgres
  BINDIR="$(server_bindir)"
fi
tool() { if [ -n "$BINDIR" ] && [ -x "$BINDIR/$1" ]; then echo "$BINDIR/$1"; else command -v "$1"; fi; }
PSQL="$(tool psql)"
PG_ISREADY="$(tool pg_isready || true)"

answers() { "$PSQL" "$1" -XAtqc 'select 1' >/dev/null 2>&1; }
ready() { # host port
  if [ -n "$PG_ISREADY" ]; then "$PG_ISREADY" -q -h "$1" -p "$2" -t 2; else (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; fi
}
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Creates database $DB through the admin URL $1 (whose role owns it).
create_db() {
  if [ "$("$PSQL" "$1" -XAtqc "select 1 from pg_database where datname = '$DB'")" != 1 ]; then
    log "creating database $DB"
    "$PSQL" "$1" -XAtqc "create database $DB" >&2
  fi
}

# 1. The URL we were given.
if [ -n "${A2A_TEST_POSTGRES_URL:-}" ]; then
  if answers "$A2A_TEST_POSTGRES_URL"; then
    log "A2A_TEST_POSTGRES_URL answers"
    echo "$A2A_TEST_POSTGRES_URL"
    exit 0
  fi
  log "A2A_TEST_POSTGRES_URL is set but does not answer; looking for another server"
fi

# As root, the cluster runs as the postgres system user.
if [ "$(id -u)" = 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    log "creating the postgres system user"
    useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/sh postgres
  fi
  as_owner() { runuser -u postgres -- "$@"; }
else
  as_owner() { "$@"; }
fi

own_url() { echo "postgres://postgres@127.0.0.1:$1/$DB"; }
own_port() { cat "$PGDATA/a2a.port" 2>/dev/null || true; }

# 2. Our own cluster, running.
if [ -f "$PGDATA/PG_VERSION" ] && [ -f "$PGDATA/postmaster.pid" ] && [ -n "$(own_port)" ] \
  && ready 127.0.0.1 "$(own_port)"; then
  port="$(own_port)"
  create_db "postgres://postgres@127.0.0.1:$port/postgres"
  log "the cluster in $PGDATA is running on port $port"
  own_url "$port"
  exit 0
fi

# 3. A server somebody else started on 5432.
if [ ! -f "$PGDATA/PG_VERSION" ] && ready 127.0.0.1 5432; then
  log "a server answers on 127.0.0.1:5432; trying to log in"
  for admin in "postgres://postgres@127.0.0.1:5432/postgres" "postgres://postgres:postgres@127.0.0.1:5432/postgres"; do
    if answers "$admin"; then
      create_db "$admin"
      echo "${admin%/postgres}/$DB"
      exit 0
    fi
  done
  # Peer authentication on the server's Unix socket, as the postgres user.
  if [ "$(id -u)" = 0 ]; then
    for sockdir in /var/run/postgresql /run/postgresql /tmp; do
      [ -S "$sockdir/.s.PGSQL.5432" ] || continue
      if runuser -u postgres -- "$PSQL" -h "$sockdir" -p 5432 -d postgres -XAtqc 'select 1' >/dev/null 2>&1; then
        log "logged in by peer authentication on $sockdir; creating role and database $DB"
        runuser -u postgres -- "$PSQL" -h "$sockdir" -p 5432 -d postgres -XAtq -v ON_ERROR_STOP=1 >&2 <<SQL
select format('create role %I login password %L', '$DB', '$DB') where not exists (select 1 from pg_roles where rolname = '$DB') \gexec
alter role $DB login password '$DB';
select format('create database %I owner %I', '$DB', '$DB') where not exists (select 1 from pg_database where datname = '$DB') \gexec
SQL
        url="postgres://$DB:$DB@127.0.0.1:5432/$DB"
        if answers "$url"; then
          echo "$url"
          exit 0
        fi
        log "the role was created but $url does not answer over TCP (pg_hba.conf?)"
      fi
    done
  fi
  log "cannot log in to the server on 127.0.0.1:5432; starting a cluster of our own on another port"
fi

# 4. Our own cluster.
if [ -z "$BINDIR" ]; then
  install_postgres
  BINDIR="$(server_bindir)"
  [ -n "$BINDIR" ] || die "PostgreSQL was installed but initdb/pg_ctl/postgres are not found"
fi
log "using the PostgreSQL server binaries in $BINDIR"

if [ ! -f "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$PGDATA"
    as_owner test -x "$PGDATA" || die "the postgres user cannot reach $PGDATA (a parent directory is private): set A2A_PGDATA to a directory it can reach"
  fi
  chmod 700 "$PGDATA"
  log "initdb $PGDATA"
  as_owner "$BINDIR/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >&2
  cat >>"$PGDATA/postgresql.conf" <<'CONF'

# tests/postgres/start.sh: loopback only, no Unix socket (the port is given
# on the command line by start.sh).
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
CONF
fi

# The port: 5432 when free, else the one used before when free, else a free one.
port=""
for candidate in 5432 "$(own_port)" $(seq 55432 55532); do
  [ -n "$candidate" ] || continue
  if ! port_busy "$candidate"; then port="$candidate"; break; fi
done
[ -n "$port" ] || die "no free port for PostgreSQL"
echo "$port" | as_owner tee "$PGDATA/a2a.port" >/dev/null

log "starting PostgreSQL on 127.0.0.1:$port (log: $PGDATA/server.log)"
if ! as_owner "$BINDIR/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -o "-p $port" -w -t 60 start >&2; then
  tail -n 20 "$PGDATA/server.log" >&2 || true
  die "PostgreSQL did not start"
fi
for _ in $(seq 1 60); do
  ready 127.0.0.1 "$port" && break
  sleep 0.5
done
ready 127.0.0.1 "$port" || die "PostgreSQL on port $port is not ready after 30 s"

create_db "postgres://postgres@127.0.0.1:$port/postgres"
own_url "$port"

#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite (test/fixtures/postgres.ts).
#
#   scripts/postgres-test-cluster.sh start <dir>   # prints postgres://postgres@127.0.0.1:<port>/postgres
#   scripts/postgres-test-cluster.sh stop <dir>    # stops the cluster and removes <dir>
#
# `start` installs Debian's `postgresql` package when no `initdb` is found, creates the cluster in
# <dir> (trust auth, UTF8, C locale, fsync off: test data only), listens on a free port of
# 127.0.0.1 with its socket inside <dir>, waits until it accepts connections and prints the
# connection string on stdout (everything else goes to stderr). As root the server runs as the
# `postgres` user, which initdb requires.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop <dir>" >&2
  exit 2
}

[ $# -eq 2 ] || usage
command="$1"
dir="$2"

find_bin() {
  if command -v initdb >/dev/null 2>&1; then
    # Resolve symlinks (e.g. /usr/local/bin/initdb) to the directory holding pg_ctl and pg_isready.
    dirname "$(readlink -f "$(command -v initdb)")"
    return 0
  fi
  # Debian keeps the server binaries out of PATH; take the newest installed major version.
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$found" ] && [ -x "$found/initdb" ]; then
    echo "$found"
    return 0
  fi
  return 1
}

# Runs a server binary as the cluster owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

start() {
  local bin
  if ! bin="$(find_bin)"; then
    echo "postgres-test-cluster: no initdb found, installing Debian's postgresql package" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    bin="$(find_bin)" || { echo "postgres-test-cluster: initdb still not found after installing postgresql" >&2; exit 1; }
  fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [ -e "$dir/data" ]; then
    echo "postgres-test-cluster: $dir/data exists; stop that cluster first" >&2
    exit 1
  fi
  mkdir -p "$dir/socket"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir "$dir" --shell /bin/sh postgres
    chown -R postgres: "$dir"
    # initdb runs as postgres: every folder above <dir> must let it through (a 0700 mkdtemp does not).
    runuser -u postgres -- test -x "$dir" || {
      echo "postgres-test-cluster: the postgres user cannot enter $dir (a folder above it is private, e.g. a 0700 mktemp -d): give the cluster a folder of its own, e.g. \$(mktemp -d)" >&2
      exit 1
    }
  fi
  as_owner "$bin/initdb" --pgdata="$dir/data" --username=postgres --auth=trust --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  local port attempt
  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    if as_owner "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --timeout=60 \
      -o "-p $port -k $dir/socket -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >&2; then
      echo "$port" >"$dir/port"
      break
    fi
    # Someone took the port between probing and binding: try another.
    tail -n 5 "$dir/server.log" >&2 || true
    [ "$attempt" -lt 5 ] || { echo "postgres-test-cluster: the server did not start" >&2; exit 1; }
  done
  for attempt in $(seq 1 100); do
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
      echo "postgres://postgres@127.0.0.1:$port/postgres"
      return 0
    fi
    sleep 0.1
  done
  echo "postgres-test-cluster: the server is not accepting connections" >&2
  exit 1
}

stop() {
  [ -d "$dir" ] || return 0
  local bin
  if [ -f "$dir/data/postmaster.pid" ] && bin="$(find_bin)"; then
    as_owner "$bin/pg_ctl" --pgdata="$dir/data" --mode=fast --wait stop >&2 || true
  fi
  rm -rf "$dir"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac

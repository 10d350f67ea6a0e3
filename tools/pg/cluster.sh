#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and benchmarks, on loopback only.
#   tools/pg/cluster.sh start DIR [PORT]   initialises DIR, starts the server, prints its URL
#   tools/pg/cluster.sh stop DIR           stops the server and removes DIR (safe to repeat)
# The server refuses to run as root, so as root it runs as the `postgres` user (Debian's package
# creates it), which must be able to reach DIR: its parent folders must be searchable by others.
# Durability is off (fsync, synchronous_commit, full_page_writes): the cluster lives for one run and
# is thrown away, so a crash can only lose what nobody keeps.
set -euo pipefail

command="${1:-}"
MARKER=.throwaway-postgres-cluster
dir="${2:-}"
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start DIR [PORT] | stop DIR" >&2
  exit 2
fi

bindir() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$found" ] || [ ! -x "$found/pg_ctl" ]; then
    echo "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): apt-get install -y postgresql" >&2
    exit 1
  fi
  echo "$found"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      echo "running as root needs the postgres user to run the server as (Debian's postgresql package creates it)" >&2
      exit 1
    fi
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

case "$command" in
  start)
    bin="$(bindir)"
    port="${3:-$(free_port)}"
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
      echo "$dir is not empty: give start a new or empty folder" >&2
      exit 1
    fi
    mkdir -p "$dir"
    # stop removes only a folder start made (this file says so), never one mistyped.
    touch "$dir/$MARKER"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    # Every role signs in without a password but one: the tests of a wrong password need a server
    # that asks for one (test/postgres/connect-errors.test.ts).
    { echo "host all password_probe 127.0.0.1/32 scram-sha-256"; cat "$dir/data/pg_hba.conf"; } >"$dir/pg_hba.conf"
    as_owner cp "$dir/pg_hba.conf" "$dir/data/pg_hba.conf"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
      "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=1000 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=128MB" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -e "$dir" ] || exit 0
    if [ ! -f "$dir/$MARKER" ]; then
      echo "$dir was not made by $0 start: left as it is" >&2
      exit 1
    fi
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "unknown command $command: start or stop" >&2
    exit 2
    ;;
esac

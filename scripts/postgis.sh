#!/usr/bin/env bash
# A private PostgreSQL 15 + PostGIS 3 server for the tests and benchmarks: its own data and socket folder
# under /tmp, its own port, listening on 127.0.0.1 only, stopped and removed by `stop`.
#
#   scripts/postgis.sh start     installs postgresql-15 + postgresql-15-postgis-3 if missing, creates the cluster,
#                                starts it, creates the database `meridian` with the postgis extension and the role
#                                `meridian` (password `meridian`, for the password-authentication tests), and prints
#                                the environment lines of `env`; idempotent (a running server is reused)
#   scripts/postgis.sh env       prints `export MERIDIAN_PG=...` (the OGR connection string over the socket, user
#                                postgres) and MERIDIAN_PG_TCP (over TCP as the role meridian, with its password)
#   scripts/postgis.sh stop      stops the server and removes its folder
#   scripts/postgis.sh status    says whether it runs
#
# Use: eval "$(scripts/postgis.sh start)"; ...; scripts/postgis.sh stop  (scripts/test.sh does this, with a trap).
# The folder and the port are derived from this checkout's path and MERIDIAN_PG_INSTANCE (default "test"; bench/run
# uses "bench"), so two checkouts, or the tests and the benchmarks, on one machine do not meet; MERIDIAN_PG_PORT
# overrides the port. As root the server runs as the `postgres` user (PostgreSQL refuses root).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=/usr/lib/postgresql/15/bin
key=$(echo "$(pwd -P) ${MERIDIAN_PG_INSTANCE:-test}" | cksum | cut -d' ' -f1)
root=/tmp/meridian-postgis-$key
data=$root/data
socket=$root/socket
log=$root/server.log
port=${MERIDIAN_PG_PORT:-$((40000 + key % 20000))}

as_server_user() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

environment() {
    echo "export MERIDIAN_PG='PG:host=$socket port=$port dbname=meridian user=postgres'"
    echo "export MERIDIAN_PG_TCP='PG:host=127.0.0.1 port=$port dbname=meridian user=meridian password=meridian'"
}

install() {
    local missing=()
    for p in postgresql-15 postgresql-15-postgis-3; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "Installing: ${missing[*]}" >&2
        local sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

running() { [[ -d $data ]] && as_server_user "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

psql_() { as_server_user "$bin/psql" -h "$socket" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

start() {
    install
    if running; then environment; return; fi
    rm -rf "$root"
    mkdir -p "$data" "$socket"
    chmod 700 "$root"
    [[ $(id -u) -eq 0 ]] && chown -R postgres:postgres "$root"
    as_server_user "$bin/initdb" -D "$data" -U postgres -A trust --auth-host=scram-sha-256 --no-sync \
        >"$root/initdb.log" 2>&1 || { cat "$root/initdb.log" >&2; exit 1; }
    # Sockets in our own folder only, TCP on 127.0.0.1 only; durability traded for speed (a test database).
    if ! as_server_user "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 start \
        -o "-k $socket -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        >/dev/null; then
        cat "$log" >&2
        echo "postgis.sh: the server did not start (log above: $log)" >&2
        exit 1
    fi
    # The server runs at the caller's priority: pg_ctl starts it in a session (and so a scheduler autogroup) of its
    # own, which would otherwise run at the default weight beside a benchmark run at `echo -20 > /proc/self/autogroup`.
    local nice pid
    nice=$(sed -n 's/.* nice \(-\?[0-9]*\)$/\1/p' /proc/self/autogroup 2>/dev/null || true)
    pid=$(head -1 "$data/postmaster.pid" 2>/dev/null || true)
    if [[ -n $nice && -n $pid && -w /proc/$pid/autogroup ]]; then echo "$nice" >"/proc/$pid/autogroup" || true; fi
    psql_ -d postgres -c "CREATE DATABASE meridian"
    psql_ -d meridian -c "CREATE EXTENSION postgis" \
        -c "CREATE ROLE meridian LOGIN PASSWORD 'meridian'" \
        -c "GRANT ALL ON SCHEMA public TO meridian"
    environment
}

stop() {
    if running; then as_server_user "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi
    rm -rf "$root"
}

case ${1:-} in
    start) start ;;
    stop) stop ;;
    env) environment ;;
    status) if running; then echo "running on port $port (socket folder $socket)"; else echo "not running"; exit 1; fi ;;
    *) echo "usage: scripts/postgis.sh start|stop|env|status" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# segments.sh on one machine: two throwaway MariaDB servers on loopback (stock, and with
# server_audit logging every query) stand in for the servers, and three local segments
# stand in for three client hosts. This is how the results in this directory were made.
#
#   ./local-demo.sh        (as root on Debian 12 with mariadb-server and parallel)
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
export ABTEST
work=$(mktemp -d /tmp/abtest-distributed-XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait; rm -rf "$work"' EXIT
export ABTEST_PASSWORD
ABTEST_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
serve() { # name port options...
  local name=$1 port=$2
  shift 2
  mkdir -p "$work/$name/tmp"
  mariadb-install-db --no-defaults --datadir="$work/$name/data" --user=root \
    --auth-root-authentication-method=socket --skip-test-db >/dev/null
  mariadbd --no-defaults --user=root --datadir="$work/$name/data" --socket="$work/$name/sock" \
    --port="$port" --bind-address=127.0.0.1 --tmpdir="$work/$name/tmp" --skip-name-resolve \
    --log-error="$work/$name/error.log" --innodb-buffer-pool-size=256M "$@" &
  pids+=($!)
  for _ in $(seq 1 100); do
    mariadb --no-defaults -S "$work/$name/sock" -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
  mariadb --no-defaults -S "$work/$name/sock" -e "CREATE DATABASE sbtest;
    CREATE USER abtest@'127.0.0.1' IDENTIFIED BY '$ABTEST_PASSWORD';
    GRANT ALL ON sbtest.* TO abtest@'127.0.0.1';"
  sed "s/^port = .*/port = $port/" "$name.toml" >"$work/$name.toml"
}
serve stock 23306
serve audit 23307 --plugin-load-add=server_audit --server-audit-logging=ON \
  --server-audit-file-path="$work/audit/audit.log"
BASELINE=$work/stock.toml VARIANT=$work/audit.toml HOSTS="local local local" SEED=2026 LEAD=15 \
  ./segments.sh --workload oltp_point_select --threads 6 --table-size 10000 \
  --rounds 10 --round-time 5s --max-tps-loss 5%

#!/usr/bin/env bash
# Two servers compared (shared seed 003): the same oltp_read_write at 64 threads against
# two external servers, through [connection] profiles.
#
#   ./run.sh             starts two local MariaDB servers (A: 512 MB buffer pool,
#                        B: 32 MB, standing in for a smaller offer), points copies of
#                        server-a.toml / server-b.toml at them, runs, and stops them.
#   ./run.sh --external  runs server-a.toml against server-b.toml as they are.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
ARGS=(--workload oltp_read_write --threads 64 --tables 4 --table-size 50000
      --max-time 5m --seed 2026 --json results.json --markdown results.md --overwrite)

if [ "${1:-}" = "--external" ]; then
  exec "$ABTEST" --baseline server-a.toml --variant server-b.toml "${ARGS[@]}"
fi

work=$(mktemp -d /tmp/abtest-comparison-XXXXXX)
pids=()
cleanup() {
  for dir in "$work"/a "$work"/b; do
    [ -S "$dir/sock" ] && mariadb --no-defaults -S "$dir/sock" -uroot -e shutdown 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
start() { # name buffer_pool; sets PORT
  local dir="$work/$1" port
  mkdir -p "$dir/tmp"
  TMPDIR="$dir/tmp" mariadb-install-db --no-defaults --datadir="$dir/data" \
    --auth-root-authentication-method=socket --auth-root-socket-user="$(id -un)" --skip-test-db --user=root >/dev/null
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mariadbd --no-defaults --user=root --datadir="$dir/data" --socket="$dir/sock" --port="$port" \
    --bind-address=127.0.0.1 --tmpdir="$dir/tmp" --log-error="$dir/error.log" --skip-name-resolve \
    --max-connections=200 --innodb-buffer-pool-size="$2" >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do mariadb --no-defaults -S "$dir/sock" -uroot -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
  mariadb --no-defaults -S "$dir/sock" -uroot -e "CREATE DATABASE sbtest;
    CREATE USER 'sbtest'@'127.0.0.1' IDENTIFIED BY 'local-only';
    GRANT ALL ON sbtest.* TO 'sbtest'@'127.0.0.1';"
  PORT=$port
}
start a 512M; port_a=$PORT
start b 32M; port_b=$PORT
sed -e 's/server-a.example/127.0.0.1/' -e "s/^port = .*/port = $port_a/" server-a.toml > "$work/server-a.toml"
sed -e 's/server-b.example/127.0.0.1/' -e "s/^port = .*/port = $port_b/" server-b.toml > "$work/server-b.toml"
export SERVER_A_PASSWORD=local-only SERVER_B_PASSWORD=local-only
"$ABTEST" --baseline "$work/server-a.toml" --variant "$work/server-b.toml" "${ARGS[@]}"

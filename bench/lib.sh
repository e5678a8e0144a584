# Shared helpers of the benchmark scripts: a throwaway MariaDB on loopback, sysbench and
# abtest invocations, and CPU accounting. Source it; it stops the server on exit.
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ABTEST="$BENCH_ROOT/target/release/abtest"

need() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build_abtest() {
  (cd "$BENCH_ROOT" && cargo build --release --quiet && cargo build --release --quiet --example raw_client)
}

# The floor client of bench/raw_client.rs: point selects on sbtest1 with no protocol
# library. "$RAW_CLIENT" $(raw_conn) point_select|read_only THREADS SECONDS TABLE_SIZE
RAW_CLIENT="$BENCH_ROOT/target/release/examples/raw_client"
raw_conn() { echo "$SERVER_PORT" bench bench sbtest; }
raw_cpu_us_per_tx() { awk '/measured cpu us per transaction:/ {print $6}' "$1"; }

# start_server [mysqld options...]: a fresh datadir and a server on a free port.
# Sets SERVER_DIR, SERVER_PORT, SERVER_PID; creates user bench/bench on sbtest.
start_server() {
  SERVER_DIR=$(mktemp -d /tmp/abtest-bench-XXXXXX)
  mkdir -p "$SERVER_DIR/tmp"
  TMPDIR="$SERVER_DIR/tmp" mariadb-install-db --no-defaults --datadir="$SERVER_DIR/data" \
    --auth-root-authentication-method=socket --auth-root-socket-user="$(id -un)" --skip-test-db --user=root >/dev/null
  SERVER_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mariadbd --no-defaults --user=root --datadir="$SERVER_DIR/data" --socket="$SERVER_DIR/sock" \
    --port="$SERVER_PORT" --bind-address=127.0.0.1 --tmpdir="$SERVER_DIR/tmp" \
    --log-error="$SERVER_DIR/error.log" --skip-name-resolve --max-connections=2000 \
    --innodb-buffer-pool-size=512M "$@" &
  SERVER_PID=$!
  trap stop_server EXIT
  for _ in $(seq 1 100); do
    mariadb --no-defaults -S "$SERVER_DIR/sock" -uroot -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
  mariadb --no-defaults -S "$SERVER_DIR/sock" -uroot -e "
    CREATE DATABASE sbtest;
    CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY 'bench';
    GRANT ALL ON sbtest.* TO 'bench'@'127.0.0.1';"
  BENCH_PROFILE="$SERVER_DIR/external.toml"
  printf '[connection]\nhost = "127.0.0.1"\nport = %s\nuser = "bench"\npassword_env = "BENCH_PASSWORD"\ndatabase = "sbtest"\n' \
    "$SERVER_PORT" > "$BENCH_PROFILE"
  export BENCH_PASSWORD=bench
}

stop_server() {
  if [ -n "${SERVER_PID:-}" ]; then
    mariadb --no-defaults -S "$SERVER_DIR/sock" -uroot -e 'shutdown' >/dev/null 2>&1 || kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
  [ -n "${SERVER_DIR:-}" ] && rm -rf "$SERVER_DIR"
  SERVER_DIR=
}

sysbench_conn() {
  echo --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$SERVER_PORT" \
    --mysql-user=bench --mysql-password=bench --mysql-db=sbtest
}

# timed OUT CMD...: runs CMD, writing its stdout to OUT and "user sys wall maxrss_kb" to OUT.time.
timed() {
  local out=$1; shift
  /usr/bin/time -f '%U %S %e %M' -o "$out.time" "$@" >"$out" 2>"$out.err"
}

cpu_seconds() { awk '{print $1 + $2}' "$1.time"; }
# cpu_us_per_tx OUT TRANSACTIONS: the whole process's CPU of a timed run, µs per transaction.
cpu_us_per_tx() { python3 -c "print(round($(cpu_seconds "$1") / $2 * 1e6, 2))"; }
peak_rss_mb() { awk '{print $4 / 1024}' "$1.time"; }

# From a sysbench report OUT: its transactions, and its transactions per second.
sysbench_transactions() { awk '/transactions:/ {print $2}' "$1"; }
sysbench_tps() { awk '/transactions:/ {gsub("\\(", "", $3); print $3}' "$1"; }

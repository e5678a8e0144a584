#!/usr/bin/env bash
# MariaDB against MySQL (the other axis of shared seed 004): the same oltp_read_write at
# 64 and 256 threads against two external servers. Edit the hosts in mariadb.toml and
# mysql.toml, export MARIADB_PASSWORD and MYSQL_PASSWORD, then run this.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
: "${MARIADB_PASSWORD:?export MARIADB_PASSWORD (and MYSQL_PASSWORD) first}"
: "${MYSQL_PASSWORD:?export MYSQL_PASSWORD first}"
"$ABTEST" --baseline mysql.toml --variant mariadb.toml \
  --workload oltp_read_write --threads 64,256 --tables 10 --table-size 100000 \
  --rounds 10 --round-time 30s --warmup 10s \
  --json results.json --markdown results.md --html results.html --overwrite

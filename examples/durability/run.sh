#!/usr/bin/env bash
# The durability axis of shared seed 000: sync_binlog=1 + innodb_flush_log_at_trx_commit=1
# vs 0/0, oltp_write_only at 8 threads, within a 4-minute budget, against a 5 % tolerance.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
"$ABTEST" --baseline relaxed.toml --variant durable.toml \
  --workload oltp_write_only --threads 8 --tables 4 --table-size 25000 \
  --max-time 4m --max-tps-loss 5% --seed 2026 \
  --json results.json --markdown results.md --overwrite

#!/usr/bin/env bash
# The thread-pool study (shared seed 004): one-thread-per-connection vs pool-of-threads
# on the seed's workload (sysbench 0.4 --test=oltp, which is oltp_read_write) at the
# seed's 512 and 900 connections, within a 10-minute budget.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
"$ABTEST" --baseline one-thread-per-connection.toml --variant pool-of-threads.toml \
  --workload oltp_read_write --threads 512,900 --max-time 10m --seed 4 \
  --json results.json --markdown results.md --overwrite

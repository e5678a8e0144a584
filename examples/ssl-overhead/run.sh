#!/usr/bin/env bash
# The SSL study (shared seed 002): TLS required vs disabled, oltp_read_write at 8
# threads. The seed used 250 tables x 25 000 rows and one 120 s run per side; this runs
# 25 tables x 25 000 rows, within a 5-minute budget, against a 5 % tolerance.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
"$ABTEST" --baseline tls-off.toml --variant tls-on.toml \
  --workload oltp_read_write --threads 8 --tables 25 --table-size 25000 \
  --max-time 5m --max-tps-loss 5% --seed 2026 \
  --json results.json --markdown results.md --overwrite

#!/usr/bin/env bash
# The audit-plugin study (shared seed 000): server_audit vs no audit, point selects
# without transactions, at 16, 64 and 256 threads, under three durability settings,
# against a 5 % tolerance.
#
# Scale it up as in the seed: --tables 10 --table-size 500000 --round-time 3600s
# (and more rounds) on a dedicated server.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
# The thread sweep under 0/0 (5 minutes), then the other two durability settings at 64
# threads (2.5 minutes each): ten minutes of rounds in all.
run() { # durability threads budget
  "$ABTEST" --baseline "base-$1.toml" --variant "audit-$1.toml" \
    --workload oltp_point_select --threads "$2" --tables 10 --table-size 10000 \
    --max-time "$3" --max-tps-loss 5% --seed 2026 \
    --json "results-$1.json" --markdown "results-$1.md" --overwrite ||
    case $? in 3 | 4) ;; *) exit 1 ;; esac # NO-GO and INCONCLUSIVE are answers
}
run 00 16,64,256 5m
run 11 64 150s
run 1002 64 150s

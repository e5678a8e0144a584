#!/usr/bin/env bash
# The audit-plugin study (shared seed 000): server_audit vs no audit, point selects
# without transactions, at 16, 64 and 256 threads, under three durability settings. One
# A/B experiment per setting, each within a 3-minute budget, against a 5 % tolerance.
#
# Scale it up as in the seed: --tables 10 --table-size 500000 --round-time 3600s
# (and more rounds) on a dedicated server.
set -euo pipefail
cd "$(dirname "$0")"
ABTEST=${ABTEST:-../../target/release/abtest}
[ -x "$ABTEST" ] || (cd ../.. && cargo build --release --quiet)
for durability in 00 11 1002; do
  "$ABTEST" --baseline "base-$durability.toml" --variant "audit-$durability.toml" \
    --workload oltp_point_select --threads 16,64,256 --tables 10 --table-size 10000 \
    --max-time 3m --max-tps-loss 5% --seed 2026 \
    --json "results-$durability.json" --markdown "results-$durability.md"
done

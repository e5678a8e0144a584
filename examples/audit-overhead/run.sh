#!/usr/bin/env bash
# The audit-plugin study (shared seed 000): server_audit vs no audit, point selects
# without transactions, 16..256 threads, under three durability settings. One A/B
# experiment per setting; about 20 minutes in all on a 2-core machine.
#
# Scale it up as in the seed: --tables 10 --table-size 500000 --round-time 3600s
# (and more rounds) on a dedicated server.
set -euo pipefail
cd "$(dirname "$0")"
ABTEST=${ABTEST:-../../target/release/abtest}
[ -x "$ABTEST" ] || (cd ../.. && cargo build --release --quiet)
for durability in 00 11 1002; do
  "$ABTEST" --baseline "base-$durability.toml" --variant "audit-$durability.toml" \
    --workload oltp_point_select --threads 16,32,64,128,256 --tables 10 --table-size 10000 \
    --rounds 3 --round-time 10s --warmup 3s --seed 2026 \
    --json "results-$durability.json" --markdown "results-$durability.md"
done

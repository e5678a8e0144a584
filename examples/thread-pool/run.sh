#!/usr/bin/env bash
# The thread-pool study (shared seed 004): one-thread-per-connection vs pool-of-threads
# at 64, 256, 512 and 1024 connections, point selects. About 4 minutes.
set -euo pipefail
cd "$(dirname "$0")"
ABTEST=${ABTEST:-../../target/release/abtest}
[ -x "$ABTEST" ] || (cd ../.. && cargo build --release --quiet)
"$ABTEST" --baseline one-thread-per-connection.toml --variant pool-of-threads.toml \
  --workload oltp_point_select --threads 64,256,512,1024 \
  --rounds 3 --round-time 5s --warmup 2s --seed 4 \
  --json results.json --markdown results.md

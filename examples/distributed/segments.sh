#!/usr/bin/env bash
# One abtest run split over several client hosts with ssh and GNU parallel, then merged.
#
#   HOSTS="client1 client2 client3" ./segments.sh [abtest options...]
#
# Each host runs `abtest --segment I/N` with the same options, seed and start time, and
# needs abtest, the two profiles (copied into the same directory) and ABTEST_PASSWORD.
# A host named `local` runs its segment here instead of over ssh. The segments' results
# come back as segment-I.json; `abtest merge` joins them into merged.json.
set -euo pipefail
cd "$(dirname "$0")"
ABTEST=${ABTEST:-abtest}
BASELINE=${BASELINE:-stock.toml}
VARIANT=${VARIANT:-audit.toml}
read -r -a hosts <<<"${HOSTS:?name the client hosts, such as HOSTS=\"client1 client2 client3\"}"
n=${#hosts[@]}
seed=${SEED:-$RANDOM}
# Late enough for every host to connect and for segment 1 to prepare the data.
start=$(date -u -d "+${LEAD:-30} seconds" +%Y-%m-%dT%H:%M:%SZ)
dir=$(pwd)
run_segment() { # host index options...
  local host=$1 index=$2
  shift 2
  local command=("$ABTEST" --baseline "$BASELINE" --variant "$VARIANT" "$@"
    --seed "$seed" --segment "$index/$n" --start-at "$start" --json "segment-$index.json" --overwrite)
  if [ "$host" = local ]; then
    "${command[@]}"
  else
    # shellcheck disable=SC2029 # expanded here on purpose: every host gets the same plan
    ssh "$host" "cd '$dir' && ABTEST_PASSWORD='$ABTEST_PASSWORD' $(printf '%q ' "${command[@]}")" &&
      ssh "$host" "cat '$dir/segment-$index.json'" >"segment-$index.json"
  fi
}
export -f run_segment
export SHELL=${BASH:-/bin/bash} # parallel runs the exported function in bash
export ABTEST BASELINE VARIANT seed start n dir ABTEST_PASSWORD
echo "segments.sh: $n segments, seed $seed, first round at $start"
parallel -j "$n" --tag --line-buffer --halt now,fail=1 --link run_segment {1} {2} "$@" \
  ::: "${hosts[@]}" ::: $(seq 1 "$n")
files=()
for i in $(seq 1 "$n"); do files+=("segment-$i.json"); done
"$ABTEST" merge "${files[@]}" --json merged.json --markdown merged.md --overwrite ||
  case $? in 3 | 4) ;; *) exit 1 ;; esac # NO-GO and INCONCLUSIVE are answers

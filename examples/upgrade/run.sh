#!/usr/bin/env bash
# Upgrade: the installed MariaDB (old.toml) against the install tree to upgrade to
# (new.toml), oltp_read_write at 8 and 32 threads within a 20-minute budget, against a
# 5 % tolerance. ./run.sh /opt/mariadb-11.4.5-linux-systemd-x86_64 uses that tree for
# the new side instead of new.toml's basedir.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/find-abtest.sh
source ../../scripts/find-abtest.sh
find_abtest
new=new.toml
if [ $# -gt 0 ]; then
  [ -d "$1" ] || { echo "run.sh: $1 is not a directory; give the new install's top directory" >&2; exit 2; }
  new=$(mktemp --suffix=.toml)
  trap 'rm -f "$new"' EXIT
  sed "s|^basedir = .*|basedir = \"$(realpath "$1")\"|" new.toml >"$new"
fi
"$ABTEST" --baseline old.toml --variant "$new" \
  --workload oltp_read_write --threads 8,32 --tables 4 --table-size 100000 \
  --max-time 20m --max-tps-loss 5% \
  --json results.json --markdown results.md --html results.html --overwrite

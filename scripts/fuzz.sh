#!/usr/bin/env bash
# Fuzzes one target of fuzz/targets.py with atheris for SECONDS (default 60):
#   scripts/fuzz.sh TARGET [SECONDS] [more libFuzzer options]
#   scripts/fuzz.sh list        # the targets
# Needs `pip install atheris` (the `fuzz` extra).  Crash inputs land in build/fuzz/crashes/.
# For a count of executions rather than a time (the 10^6 per target of the hardening check),
# with a corpus kept across runs and a log of executions, use scripts/fuzz_long.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
if [ "${1:-list}" = "list" ]; then exec "$PY" fuzz/targets.py; fi
target=$1; seconds=${2:-60}; shift; [ $# -gt 0 ] && shift
mkdir -p build/fuzz/crashes
exec "$PY" fuzz/run.py "$target" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 \
  -artifact_prefix=build/fuzz/crashes/"$target"- -print_final_stats=1 "$@"

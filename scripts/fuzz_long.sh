#!/usr/bin/env bash
# A long, resumable fuzz run of one target of fuzz/targets.py (atheris), for the count of
# executions the hardening check asks for (10^6 per target); not part of CI:
#
#   scripts/fuzz_long.sh TARGET RUNS [WORKDIR [libFuzzer options...]]   # e.g. ... decode 1000000
#   scripts/fuzz_long.sh total [WORKDIR]           # cumulative executions per target
#
# WORKDIR (default build/fuzz-long) holds per target a corpus that persists across runs
# (WORKDIR/TARGET/, seeded from ../shared/models on first use; a later run starts from what
# earlier runs found), crash inputs (WORKDIR/crashes/), each run's libFuzzer output
# (WORKDIR/logs/) and WORKDIR/executions.txt: one line per run, "TARGET EXECUTIONS EXIT END-TIME",
# where EXECUTIONS is libFuzzer's stat::number_of_executed_units (the corpus replay included).
# Runs are niced (19): the machine is shared.  A run that stops early (a crash, a kill) still
# logs what it executed.  Split a long count into several runs to stop and resume it.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
if [ "${1:-}" = "total" ]; then
  log=${2:-build/fuzz-long}/executions.txt
  awk '{n[$1] += $2; r[$1] = r[$1] " " $2} END {for (t in n) printf "%-18s %9d  (runs:%s)\n", t, n[t], r[t]}' "$log" | sort
  exit 0
fi
if [ $# -lt 2 ]; then sed -n 2,14p "$0"; exit 2; fi
target=$1; runs=$2; work=${3:-build/fuzz-long}
shift $(( $# < 3 ? $# : 3 ))
mkdir -p "$work/$target" "$work/crashes" "$work/logs"
if [ -z "$(ls -A "$work/$target")" ]; then  # seeds, as fuzz/run.py makes them for its default corpus
  "$PY" -c "import sys; sys.path.insert(0, 'fuzz'); import targets
for i, s in enumerate(targets.seeds('$target')): open('$work/$target/seed-%d' % i, 'wb').write(s)"
fi
out="$work/logs/$target-$(date -u +%Y%m%dT%H%M%S).log"
nice -n 19 "$PY" fuzz/run.py "$target" -runs="$runs" -rss_limit_mb=4096 -timeout=60 \
  -artifact_prefix="$work/crashes/$target-" -print_final_stats=1 "$@" "$work/$target" >"$out" 2>&1
status=$?
done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
if [ -z "$done_runs" ]; then  # killed before the final stats: the last progress line's count
  done_runs=$(grep -oE '^#[0-9]+' "$out" | tail -1 | tr -d '#')
fi
echo "$target ${done_runs:-0} $status $(date -u +%FT%TZ)" >>"$work/executions.txt"
tail -3 "$out"
exit $status

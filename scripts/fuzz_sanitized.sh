#!/usr/bin/env bash
# scripts/fuzz_long.sh under the AddressSanitizer + UndefinedBehaviorSanitizer build (the venv
# scripts/sanitize_tests.sh makes, build/asan-venv): the native core's memory errors and UB
# then end the run with a report, not only its crashes.  Not part of CI:
#
#   scripts/fuzz_sanitized.sh TARGET RUNS [WORKDIR [SEEDDIR [libFuzzer options...]]]
#   e.g. scripts/fuzz_sanitized.sh decode 20000 build/fuzz-asan /work/fuzzwork/decode -max_total_time=300
#
# WORKDIR (default build/fuzz-asan) is as for fuzz_long.sh (a corpus per target, crashes/,
# logs/, executions.txt); SEEDDIR, when given and WORKDIR/TARGET is still empty, is copied into
# it first (a copy: e.g. a long run's corpus, which is read, never written).  Sanitizer
# reports go to WORKDIR/sanitizer/; the last line says how many there are, and the exit
# status is non-zero on a crash or a report.  Leak checking is off here (Python leaves much
# memory unfreed at exit; LeakSanitizer runs over the test suite in sanitize_tests.sh), and
# so is libFuzzer's own per-input leak check (-detect_leaks=0 through ASAN_OPTIONS).
# Not coverage-guided: with libasan preloaded, the coverage callbacks resolve to libasan's
# (atheris warns so), and the pip wheel of atheris has no ASan-with-libFuzzer runtime to
# preload instead; such a run mutates the corpus it is given.  Give it a corpus that a
# coverage-guided run (fuzz_long.sh on the normal build) grew, and a sample of it: the replay
# of a whole corpus alone can take many minutes under ASan.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then sed -n 2,20p "$0"; exit 2; fi
VENV=${TOKENFORGE_ASAN_VENV:-build/asan-venv}
target=$1; runs=$2; work=${3:-build/fuzz-asan}; seeds=${4:-}
shift $(( $# < 4 ? $# : 4 ))
if [ ! -x "$VENV/bin/python" ]; then echo "no $VENV: run scripts/sanitize_tests.sh once (it builds it)"; exit 2; fi
mkdir -p "$work/$target" "$work/sanitizer"
if [ -n "$seeds" ] && [ -z "$(ls -A "$work/$target")" ]; then cp -r "$seeds"/. "$work/$target"/; fi
LIBASAN="$("${CXX:-g++}" -print-file-name=libasan.so) $("${CXX:-g++}" -print-file-name=libstdc++.so)"
logs="$PWD/$work/sanitizer"
env LD_PRELOAD="$LIBASAN" PYTHONMALLOC=malloc PYTHON="$VENV/bin/python" \
  ASAN_OPTIONS="detect_leaks=0:log_path=$logs/asan-$target:abort_on_error=1:detect_stack_use_after_return=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan-$target" \
  scripts/fuzz_long.sh "$target" "$runs" "$work" "$@"
status=$?
reports=$(grep -l -E "ERROR: AddressSanitizer|runtime error|ASan cannot proceed" "$logs/"*"-$target".* 2>/dev/null | wc -l)
echo "$target: sanitizer reports: $reports (in $work/sanitizer/)"
[ "$reports" = 0 ] || status=1
exit $status

#!/usr/bin/env bash
# Runs the test suite against a build of tokenforge with AddressSanitizer + UndefinedBehaviorSanitizer
# (CMake option TOKENFORGE_SANITIZE=ON), in its own venv (build/asan-venv, made on first use).
# Not part of CI: the whole suite takes an hour or more under ASan.
#
#   scripts/sanitize_tests.sh                 # the whole suite (tests/) in one pytest run
#   scripts/sanitize_tests.sh tests/unit -x   # any pytest arguments
#   scripts/sanitize_tests.sh --pieces tests/parity src/tokenforge
#       one pytest run per test file under the given test folders (default: tests/ and the
#       doctests of src/tokenforge, which is one piece), each with its own
#       logs in build/asan-logs/pieces/<file>/ (pytest.out, status, sanitizer logs) and its own
#       leak check; a piece whose status is already 0 is not run again (delete its folder, or
#       the whole pieces/ folder, to rerun), so an interrupted whole run resumes where it
#       stopped.  Ends with one line per piece (its status and pytest's summary).
#   TOKENFORGE_ASAN_NO_INSTALL=1 scripts/sanitize_tests.sh ...   # skip the (re)build
#
# To reproduce the hardening check (issue 32), run it niced, in the background, into a log:
#   nice -n 19 scripts/sanitize_tests.sh > build/asan-suite.log 2>&1 &
# The first run builds the core with ASan (tens of minutes on a busy core; ninja rebuilds only
# what changed later).  The log ends with pytest's summary, then a line counting the sanitizer
# logs and the leaks through tokenforge; the exit status is non-zero on a failed test, an
# ASan/UBSan error, or a leak of ours.
#
# Python is not instrumented, so libasan is preloaded; PYTHONMALLOC=malloc lets ASan see
# Python objects' memory too (a str freed under a batch is caught).  An ASan error or any
# UB aborts the test process.  LeakSanitizer checks once, after pytest has returned and
# before the interpreter is torn down (scripts/lsan_check.py: at exit Python leaves much
# memory unfreed on purpose); this script fails if a leak's stack passes through
# tokenforge's module (_native / cpp/).  Leaks of other libraries that a test run loads
# (CPython, the reference libraries' Rust bindings) are suppressed by
# scripts/lsan_suppressions.txt, each with its reason.  Subprocesses the tests start (the
# CLI's tests, the peer suites) run under ASan too, unchecked for leaks.  Tests that cannot
# run here skip themselves (tests/_shared.py under_sanitizer()): RSS checks and gigabyte
# inputs (ASan's shadow memory and quarantine) and the visualizer page in Chromium
# (chromedriver aborts with libasan preloaded).  Reports: build/asan-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TOKENFORGE_ASAN_VENV:-build/asan-venv}
LOGS=${TOKENFORGE_ASAN_LOGS:-build/asan-logs}
if [ ! -x "$VENV/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q scikit-build-core "nanobind==3.1.0" cmake ninja
fi
if [ -z "${TOKENFORGE_ASAN_NO_INSTALL:-}" ]; then
  # Not stripped: the bindings' frames (hidden symbols) then have names in the reports.
  "$VENV/bin/pip" install -q --no-build-isolation ".[test]" -Cbuild-dir=build/asan \
    -Ccmake.define.TOKENFORGE_SANITIZE=ON -Cinstall.strip=false
fi
# libstdc++ preloaded too: ASan's __cxa_throw interceptor must find it at start-up.
LIBASAN="$("${CXX:-g++}" -print-file-name=libasan.so) $("${CXX:-g++}" -print-file-name=libstdc++.so)"
# run_piece LOGDIR PYTEST-ARGS...: one sanitized pytest run, its logs and leak check in LOGDIR.
run_piece() {
  local logs=$1 status=0
  shift
  # Only this run's files: build/asan-logs/pieces/ (the per-file runs) stays.
  mkdir -p "$logs" && find "$logs" -maxdepth 1 -type f -delete
  env LD_PRELOAD="$LIBASAN" PYTHONMALLOC=malloc \
    PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}" \
    ASAN_OPTIONS="detect_leaks=1:leak_check_at_exit=0:log_path=$PWD/$logs/asan:abort_on_error=1:detect_stack_use_after_return=0" \
    LSAN_OPTIONS="exitcode=0:suppressions=$PWD/scripts/lsan_suppressions.txt:print_suppressions=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$PWD/$logs/ubsan" \
    "$VENV/bin/python" -m pytest -p no:cacheprovider -p lsan_check --capture=sys "$@" 2>&1 | tee "$logs/pytest.out" \
    || status=$?
  # ASan/UBSan errors other than leaks (a process ASan could not start in counts too), and
  # leaks whose stack passes through tokenforge.  --capture=sys above: pytest's default
  # (capture=fd) keeps a test's fd 2 in a temporary file, so a report that the sanitizer
  # writes there and then exits on (UBSan with halt_on_error writes to stderr and exits 1,
  # here despite its log_path) vanished with the process, leaving neither a summary nor a log.
  errors=$(grep -l -E "ERROR: AddressSanitizer|runtime error|ASan cannot proceed" "$logs"/* 2>/dev/null || true)
  ours=$("$VENV/bin/python" - "$logs" <<'PY'
import pathlib, re, sys
count = 0
for log in pathlib.Path(sys.argv[1]).glob("*"):
    for block in re.split(r"\n(?=(?:Direct|Indirect) leak)", log.read_text(errors="replace")):
        if block.startswith(("Direct leak", "Indirect leak")) and re.search(r"_native|/cpp/", block):
            count += 1
            print(block[:2000], file=sys.stderr)
print(count)
PY
  )
  echo "sanitizer logs: $logs ($(ls "$logs" | wc -l) files); leaks through tokenforge: $ours"
  if [ -n "$errors" ]; then echo "sanitizer errors in: $errors"; status=1; fi
  if [ "$ours" != "0" ]; then status=1; fi
  return $status
}

if [ "${1:-}" = "--pieces" ]; then
  shift
  [ $# -eq 0 ] && set -- tests src/tokenforge
  status=0
  mkdir -p "$LOGS/pieces"
  # A test folder gives one piece per test file; anything else (a file, src/tokenforge for
  # its doctests) is one piece.
  for file in $(for arg in "$@"; do
                  case "$arg" in
                    tests|tests/*) [ -d "$arg" ] && find "$arg" -name 'test_*.py' -not -path '*/shims/*' | sort || echo "$arg" ;;
                    *) echo "$arg" ;;
                  esac
                done); do
    piece="$LOGS/pieces/$(echo "${file%.py}" | tr / _)"
    if [ "$(cat "$piece/status" 2>/dev/null)" = 0 ]; then continue; fi
    # Several --pieces runs may share the work (e.g. one per folder, or the same folders in
    # another order): a piece another live run has started is left to it.
    if kill -0 "$(cat "$piece.running" 2>/dev/null)" 2>/dev/null; then echo "== $file: running elsewhere"; continue; fi
    echo $$ > "$piece.running"
    echo "== $file"
    # The doctests run on the installed (sanitized) package: the source tree has no _native.
    target=("$file")
    if [ "$file" = src/tokenforge ]; then target=("$(echo "$VENV"/lib/python3*/site-packages/tokenforge)" -c pyproject.toml); fi
    run_piece "$piece" "${target[@]}" -rs > "$piece.console" 2>&1 && rc=0 || rc=$?
    mkdir -p "$piece" && mv "$piece.console" "$piece/console" && echo "$rc" > "$piece/status"
    rm -f "$piece.running"
    tail -1 "$piece/console"
  done
  for piece in "$LOGS"/pieces/*/; do
    rc=$(cat "$piece/status" 2>/dev/null || echo "?")
    [ "$rc" = 0 ] || status=1
    printf '%s %s: %s\n' "$rc" "$(basename "$piece")" "$(grep -E '(passed|failed|error|skipped|deselected|no tests ran).* in [0-9.]+s' "$piece/pytest.out" | tail -1)"
  done
  exit $status
fi
[ $# -eq 0 ] && set -- tests
run_piece "$LOGS" "$@"

#!/usr/bin/env bash
# Runs tests against a build of tokenforge with AddressSanitizer + UndefinedBehaviorSanitizer
# (CMake option TOKENFORGE_SANITIZE=ON), in its own venv (build/asan-venv, made on first use).
#
#   scripts/sanitize_tests.sh                 # the default subset below
#   scripts/sanitize_tests.sh tests/unit -x   # any pytest arguments
#
# Python is not instrumented, so libasan is preloaded; PYTHONMALLOC=malloc lets ASan see
# Python objects' memory too (a str freed under a batch is caught).  An ASan error or any
# UB aborts the test process.  LeakSanitizer checks once the session ends, before the
# interpreter is torn down (scripts/lsan_check.py: at exit Python leaves much memory
# unfreed on purpose); this script fails if a leak's stack passes through tokenforge's
# module (_native / cpp/).  Leaks of other libraries that a test run loads (CPython, the
# reference libraries' Rust bindings) are suppressed by scripts/lsan_suppressions.txt, each
# with its reason.  Subprocesses the tests start run under ASan too, unchecked for leaks.
# Reports: build/asan-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TOKENFORGE_ASAN_VENV:-build/asan-venv}
LOGS=build/asan-logs
if [ ! -x "$VENV/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q scikit-build-core "nanobind==3.1.0" cmake ninja
fi
# Not stripped: the bindings' frames (hidden symbols) then have names in the reports.
"$VENV/bin/pip" install -q --no-build-isolation ".[test]" -Cbuild-dir=build/asan \
  -Ccmake.define.TOKENFORGE_SANITIZE=ON -Cinstall.strip=false
# libstdc++ preloaded too: ASan's __cxa_throw interceptor must find it at start-up.
LIBASAN="$("${CXX:-g++}" -print-file-name=libasan.so) $("${CXX:-g++}" -print-file-name=libstdc++.so)"
rm -rf "$LOGS" && mkdir -p "$LOGS"
if [ $# -eq 0 ]; then
  set -- tests/unit tests/property/test_sentencepiece_property.py tests/property/test_bpe_properties.py \
    tests/parity/test_special_tokens.py tests/parity/test_registry_definitions.py tests/peer
fi
status=0
env LD_PRELOAD="$LIBASAN" PYTHONMALLOC=malloc \
  PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}" \
  ASAN_OPTIONS="detect_leaks=1:leak_check_at_exit=0:log_path=$PWD/$LOGS/asan:abort_on_error=1:detect_stack_use_after_return=0" \
  LSAN_OPTIONS="exitcode=0:suppressions=$PWD/scripts/lsan_suppressions.txt:print_suppressions=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$PWD/$LOGS/ubsan" \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider -p lsan_check "$@" || status=$?
# ASan/UBSan errors other than leaks, and leaks whose stack passes through tokenforge.
errors=$(grep -l -E "ERROR: AddressSanitizer|runtime error" "$LOGS"/* 2>/dev/null | grep -v leak || true)
ours=$("$VENV/bin/python" - "$LOGS" <<'PY'
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
echo "sanitizer logs: $LOGS ($(ls "$LOGS" | wc -l) files); leaks through tokenforge: $ours"
if [ -n "$errors" ]; then echo "sanitizer errors in: $errors"; status=1; fi
if [ "$ours" != "0" ]; then status=1; fi
exit $status

#!/usr/bin/env bash
# Make <repo>/.venv-ubpe: a CPython >= 3.12 venv holding the `ubpe` 0.3.0 package and both
# of its backends (ubpe-native, the pure-Python oracle of the parity tests; ubpe-cython, the
# benchmark's peer).  ubpe needs Python >= 3.12 while tokenforge supports 3.10+, so the parity
# tests and benchmarks/bench_ubpe.py run ubpe in this interpreter as a subprocess.
# The interpreter: $UBPE_PYTHON, else python3.12/python3.13 on PATH, else pyenv's newest 3.12.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-ubpe
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import ubpe_native, ubpe_cython" 2>/dev/null; then
  exit 0
fi
PY="${UBPE_PYTHON:-}"
if [ -z "$PY" ]; then
  for cand in python3.12 python3.13; do
    if command -v "$cand" >/dev/null && "$cand" -c "import sys; sys.exit(sys.version_info < (3, 12))" 2>/dev/null; then
      PY=$(command -v "$cand"); break
    fi
  done
fi
if [ -z "$PY" ] && command -v pyenv >/dev/null; then
  for d in $(ls -d "$(pyenv root)"/versions/3.12* 2>/dev/null | sort -V -r); do
    if [ -x "$d/bin/python3" ]; then PY="$d/bin/python3"; break; fi
  done
fi
if [ -z "$PY" ]; then
  echo "scripts/ubpe_venv.sh: no CPython >= 3.12 found (set UBPE_PYTHON)" >&2
  exit 1
fi
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "ubpe==0.3.0" "ubpe-native==0.3.0" "ubpe-cython==0.3.0"

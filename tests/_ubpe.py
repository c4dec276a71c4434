"""Running PyPI `ubpe` 0.3.0 (the parity oracle) and comparing its output with ours.

`ubpe` needs CPython >= 3.12, so it runs in .venv-ubpe (made by scripts/ubpe_venv.sh, which
.ci/run calls) through scripts/ubpe_oracle.py.  Without that venv the tests skip with a reason,
except under CI=true, where they fail: the parity tests must never skip in CI.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ORACLE = REPO / "scripts" / "ubpe_oracle.py"


def ubpe_python() -> Path:
    """The 3.12 interpreter that has ubpe, or a skip (a failure under CI=true)."""
    py = Path(os.environ.get("UBPE_PYTHON_VENV", REPO / ".venv-ubpe")) / "bin" / "python"
    if py.exists():
        return py
    reason = f"needs ubpe 0.3.0 in {py.parent.parent} (run scripts/ubpe_venv.sh)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason + "; parity tests must not skip in CI")
    pytest.skip(reason)


def run_oracle(models: list[dict], backend: str = "native") -> list[dict]:
    """Runs scripts/ubpe_oracle.py with `models` and returns its results (see that script)."""
    job = json.dumps({"backend": backend, "models": models})
    proc = subprocess.run([str(ubpe_python()), str(ORACLE)], input=job, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"ubpe oracle failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def assert_same_dump(ours: str, theirs: str) -> None:
    """Same fields, the mapper in the same order (it sets classic's merge priority), weights
    to 1e-12 relative."""
    a, b = json.loads(ours), json.loads(theirs)
    assert a.keys() == b.keys()
    for field in a:
        if field == "weights":
            assert list(a[field]) == list(b[field])
            for t in a[field]:
                assert math.isclose(a[field][t], b[field][t], rel_tol=1e-12, abs_tol=1e-15), t
        elif field == "mapper":
            assert list(a[field].items()) == list(b[field].items())
        else:
            assert a[field] == b[field], field


def assert_same_encodings(ours: list, theirs: list, *, exact_ids: bool) -> int:
    """Encodings of each document rank by rank: same weight (1e-9) and length, and the same
    ids when `exact_ids`.  Returns how many ranks differ in ids (ties either way)."""
    differ = 0
    assert len(ours) == len(theirs)
    for k, (o, t) in enumerate(zip(ours, theirs)):
        assert len(o) == len(t), f"doc {k}: {len(o)} encodings, ubpe {len(t)}"
        for rank, ((o_ids, o_w), (t_ids, t_w)) in enumerate(zip(o, t)):
            where = f"doc {k} rank {rank}"
            assert math.isclose(o_w, t_w, rel_tol=1e-9, abs_tol=1e-9), f"{where}: weight {o_w} != {t_w}"
            assert len(o_ids) == len(t_ids), f"{where}: length {len(o_ids)} != {len(t_ids)}"
            if exact_ids:
                assert list(o_ids) == list(t_ids), where
            differ += list(o_ids) != list(t_ids)
    return differ

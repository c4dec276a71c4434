"""sentencepiece's own Python test suite (../shared/peer-tests/sentencepiece) run against
tokenforge through the `sentencepiece` shim in tests/peer_shims, in a subprocess, from a copy
of the suite (its tests write m.model into the working folder).

The suite targets sentencepiece 0.2.0/0.2.1; the tests listed in EXPECTED_PASS must pass
(the three training tests need tokenforge's trainer).  The others need API tokenforge's
face lacks today (serialized and immutable protos, SentencePieceNormalizer, ...).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _shared import SHARED, need_shared

SUITE = SHARED / "peer-tests" / "sentencepiece"
SHIMS = Path(__file__).resolve().parent.parent / "peer_shims"
EXPECTED_PASS = {"test_train", "test_train_iterator", "test_train_kwargs", "test_load", "test_ja_load",
                 "test_roundtrip", "test_ja_roundtrip", "test_new_api_init", "test_pickle", "test_global_params",
                 "test_normalize"}


# Runs the suite and prints {test name: "ok" | "fail: <last line of the error>"} as JSON.
RUNNER = """
import json, sys, unittest
sys.path.insert(0, ".")
suite = unittest.defaultTestLoader.loadTestsFromName("test.sentencepiece_test")
out = {}
for t in suite:
    for case in (t if isinstance(t, unittest.TestSuite) else [t]):
        out[case._testMethodName] = "ok"
result = unittest.TestResult()
suite.run(result)
for case, err in result.errors + result.failures:
    out[case._testMethodName] = "fail: " + err.strip().splitlines()[-1]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def suite_results(tmp_path_factory):
    need_shared()
    if not SUITE.is_dir():
        pytest.skip(f"sentencepiece's test suite is absent at {SUITE}")
    work = tmp_path_factory.mktemp("spm_peer") / "sentencepiece"
    shutil.copytree(SUITE, work)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SHIMS), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", RUNNER], cwd=work, env=env, capture_output=True, text=True,
                          timeout=900)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("{")]
    results = json.loads(lines[-1]) if lines else {}
    return results, proc.stdout[-4000:] + proc.stderr[-4000:]


def test_peer_suite_runs_on_tokenforge(suite_results):
    results, log = suite_results
    assert results, f"no test results parsed:\n{log[-3000:]}"
    passed = {n for n, r in results.items() if r == "ok"}
    missing = EXPECTED_PASS - passed
    assert not missing, f"expected to pass but did not: {sorted(missing)}\n{log[-4000:]}"

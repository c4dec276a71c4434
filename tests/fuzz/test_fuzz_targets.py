"""A short atheris run of every fuzz target (fuzz/targets.py), a fixed number of executions
with a fixed seed (so a run here finds what CI's finds), in a subprocess: it must end without a crash, a sanitizer report, or an exception other than
the documented ones.  Long runs are `scripts/fuzz.sh TARGET SECONDS`, outside the tests.
Also each target on its seeds without atheris, so a broken target shows up anywhere."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _shared import REPO, need_shared

FUZZ = REPO / "fuzz"
# Executions per target: a count, not a time, keeps the run reproducible (CI finds what a
# local run finds).  Sized to a minute or less a target under coverage instrumentation:
# `encode` compares tiktoken's encode_with_unstable, seconds on some texts.
RUNS = {"encode": 1500, "tokenizer_json": 1000, "gguf": 1000, "gguf_reader_diff": 300}
DEFAULT_RUNS = 5000


def load_targets():
    spec = importlib.util.spec_from_file_location("fuzz_targets", FUZZ / "targets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TARGETS = sorted(load_targets().TARGETS)


@pytest.mark.parametrize("target", TARGETS)
def test_target_on_its_seeds(target):
    need_shared()
    targets = load_targets()
    if target in ("encode", "decode", "spm_encode", "bpe_trainer"):
        pytest.importorskip("atheris", reason="atheris is not installed (pip install tokenforge[fuzz])")
    for seed in targets.seeds(target):
        targets.TARGETS[target](seed)


REGRESSIONS = sorted((FUZZ / "regressions").glob("*"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.name)
def test_inputs_the_fuzzer_found(path):
    """Inputs that once failed a target (fuzz/regressions/TARGET-what): encode-lone-surrogates
    is "\\udada\\udada", which tiktoken's encode_to_numpy and encode_with_unstable refuse
    (UnicodeEncodeError) and ours encode as encode does; bpe_trainer-tiktoken-panics-on-empty-match
    trains on a random pattern whose empty matches make tiktoken's reference panic (the target
    then skips the comparison: the fault is the reference's)."""
    need_shared()
    pytest.importorskip("atheris", reason="atheris is not installed (pip install tokenforge[fuzz])")
    target = path.name.split("-")[0]
    targets = load_targets()
    targets.UNSTABLE_SAMPLE = 1  # every check, the sampled ones too
    targets.TARGETS[target](path.read_bytes())


@pytest.mark.parametrize("target", TARGETS)
def test_short_atheris_run(target, tmp_path):
    need_shared()
    if importlib.util.find_spec("atheris") is None:
        pytest.skip("atheris is not installed (pip install tokenforge[fuzz])")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, seed in enumerate(load_targets().seeds(target)):
        (corpus / f"seed-{i}").write_bytes(seed)
    # Started from a shell that forks it: a child exec'd straight from this process inherits
    # its peak RSS (Linux keeps ru_maxrss across exec), which libFuzzer reads as its own and
    # takes for an out-of-memory when the test process is large.
    done = subprocess.run(
        ["sh", "-c", '"$@"; exit $?', "sh", sys.executable, str(FUZZ / "run.py"), target, f"-runs={RUNS.get(target, DEFAULT_RUNS)}",
         "-max_total_time=150", "-seed=1", "-rss_limit_mb=4096",
         "-timeout=60", f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "Done " in out, out[-2000:]
    assert not list(Path(tmp_path).glob("crash-*")), out[-4000:]

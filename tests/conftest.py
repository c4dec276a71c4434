"""Fixtures shared by every test folder (data helpers are in _shared.py), and the CI rule:
under ``CI=true`` a test or module skipped because ../shared or a reference library is
missing fails instead (a green run must have compared with the references)."""

from __future__ import annotations

import gc
import os

import pytest
from _shared import CORPUS_FILES, corpus_sample, in_ci, need_shared

# tiktoken under its own name for the peer suite's subprocess (tests/peer/test_tiktoken_suite.py):
# never imported here, where the real tiktoken is the reference.
collect_ignore = ["peer/shims"]

# Skip reasons that mean "the references were not there": fatal under CI.
_MISSING = ("shared", "models", "no model", "could not import", "needs the")


def _fail_if_reference_missing(report) -> None:
    if in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr)
        if any(word in reason.lower() for word in _MISSING):
            report.outcome = "failed"
            report.longrepr = f"skipped under CI=true, where the references must be present: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_if_reference_missing(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_if_reference_missing(outcome.get_result())


@pytest.fixture(params=CORPUS_FILES)
def corpus(request) -> tuple[str, str]:
    """(name, sampled text) of each file of ../shared/corpus."""
    need_shared()
    return request.param, corpus_sample(request.param)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After each test file, its garbage collected and what survives frozen out of the
    collector's view: the session's cached tokenizers and references (millions of objects)
    would otherwise be scanned by every full collection for the rest of the run, a second or
    more each, and the RSS tests collect between rounds.  The file's own fixtures are gone
    by now, so what is frozen lives to the end of the session anyway."""
    yield
    if nextitem is None or nextitem.path != item.path:
        gc.collect()
        gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker per core this process may use, at most 4 (each worker loads the
    reference tokenizers it meets: several GB on a many-core machine otherwise).  Files stay
    whole on one worker (--dist loadfile in pyproject's addopts), their fixtures loaded once."""
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4))

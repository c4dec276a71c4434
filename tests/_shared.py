"""Where ../shared is, and the corpora sampled for parity tests.

Tests that need ../shared (model files, corpora) call `need_shared()`: it skips with the
reason when the folder is absent, except under CI (``CI`` set to true), where it fails: CI
always has ../shared, and a run that skipped the parity tests must not pass.  Corpora are decompressed from .xz once per session and sampled: the
start of each file plus evenly spaced line-aligned chunks, about 2 MB per file (mixed.txt,
the adversarial one, whole).  Full-corpus comparisons live in benchmarks/.
"""

from __future__ import annotations

import functools
import lzma
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TOKENFORGE_SHARED", REPO.parent / "shared"))
MODELS = SHARED / "models"
CORPUS = SHARED / "corpus"
CORPUS_FILES = ["en", "code", "multi", "mixed"]
SAMPLE_BYTES = 2_000_000

if (MODELS / "tiktoken").is_dir():
    os.environ.setdefault("TOKENFORGE_MODELS_DIR", str(MODELS / "tiktoken"))


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def under_sanitizer() -> bool:
    """True under scripts/sanitize_tests.sh (libasan preloaded): RSS there holds ASan's
    quarantine and shadow memory, so RSS checks skip (LeakSanitizer checks leaks instead)."""
    return "libasan" in os.environ.get("LD_PRELOAD", "")


def benchmark_module(name: str):
    """benchmarks/<name>.py as a module: tests that run a benchmark's table with fewer calls."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def need_shared() -> None:
    """Skips the calling test when ../shared is absent; fails it under CI."""
    if not (MODELS.is_dir() and CORPUS.is_dir()):
        message = f"needs the shared model files and corpora at {SHARED} (absent)"
        if in_ci():
            pytest.fail(f"{message}; under CI=true a missing ../shared is an error", pytrace=False)
        pytest.skip(message)


def need_extra(module: str, extra: str):
    """Imports an optional dependency; skips with a reason when it is missing, except under
    CI=true, where every extra is installed and a missing one is a failure."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"needs the {extra} extra: pip install 'tokenforge[{extra}]'")


@functools.lru_cache(maxsize=None)
def corpus_text(name: str) -> str:
    """The whole decompressed corpus file."""
    with lzma.open(CORPUS / f"{name}.txt.xz", "rt", encoding="utf-8", newline="") as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def corpus_sample(name: str, size: int = SAMPLE_BYTES) -> str:
    """About `size` characters of a corpus file: its start and 15 evenly spaced chunks,
    each cut at line boundaries (mixed.txt is returned whole)."""
    text = corpus_text(name)
    if name == "mixed" or len(text) <= size:
        return text
    chunk = size // 16
    parts = [text[:chunk]]
    for k in range(1, 16):
        start = text.find("\n", k * len(text) // 16) + 1
        end = text.find("\n", start + chunk)
        parts.append(text[start:end if end > 0 else len(text)])
    return "\n".join(parts)



def in_forked_child(target, args: tuple, timeout: float = 120):
    """Runs target(*args, queue) in a forked child; returns (its exit code, what it put in the queue)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, queue))
    child.start()
    try:
        got = queue.get(timeout=timeout)
    finally:
        child.join(timeout=30)
        if child.is_alive():
            child.kill()
    return child.exitcode, got

"""Runs one fuzz target of fuzz/targets.py under atheris (libFuzzer for Python):

    python fuzz/run.py TARGET [libFuzzer options...] [CORPUS_DIR]

With no CORPUS_DIR, build/fuzz/TARGET is used, seeded from ../shared/models on first use.
tokenforge's Python code is instrumented for coverage; the native core is not (its crashes
still end the run, as do Python exceptions other than the documented ones).  libFuzzer's
last lines give the number of executions ("Done N runs") and any crash input it saved.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

# The bpe_trainer target's reference (tiktoken) panics on some random patterns, which the
# target expects; with RUST_BACKTRACE set, each panic also prints a symbolized backtrace,
# which took most of that target's time.  The panic message itself still shows.
os.environ["RUST_BACKTRACE"] = "0"

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["tokenforge"]):
    import targets



def _instrument_ours() -> None:
    """Instruments every loaded Python function of tokenforge and of the targets, and nothing
    else: atheris.instrument_all() would also trace the references (tiktoken's, numpy's,
    regex's and the standard library's Python code), several times slower per execution
    for coverage of code that is not ours."""
    import gc
    import importlib
    import pkgutil
    import types

    for info in pkgutil.walk_packages(targets.tokenforge.__path__, "tokenforge."):
        try:  # the modules targets import lazily; optional extras may be missing
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001, S112
            continue
    for obj in gc.get_objects():
        if (isinstance(obj, types.FunctionType) and isinstance(getattr(obj, "__module__", None), str)
                and obj.__module__.split(".")[0] in ("tokenforge", "targets")
                and "_trace_branch" not in obj.__code__.co_names):
            try:
                atheris.instrument_func(obj)
            except Exception as e:  # noqa: BLE001 - a function atheris cannot patch stays blind
                print(f"INFO: not instrumented: {obj.__qualname__}: {e}", file=sys.stderr)


# An editable install loads tokenforge through its own import hook, which instrument_imports
# passes by (atheris warns; no coverage is then recorded and the run is blind): instrument
# tokenforge's loaded functions one by one instead.
if "_trace_branch" not in targets.tokenforge.core.Encoding.encode.__code__.co_names:
    _instrument_ours()


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in targets.TARGETS:
        sys.exit(f"usage: run.py TARGET [libFuzzer options] [CORPUS_DIR]; targets: {', '.join(targets.TARGETS)}")
    name = sys.argv[1]
    args = [sys.argv[0]] + sys.argv[2:]
    if not any(not a.startswith("-") for a in sys.argv[2:]):
        corpus = Path(__file__).resolve().parent.parent / "build" / "fuzz" / name
        if not corpus.is_dir():
            corpus.mkdir(parents=True)
            for i, seed in enumerate(targets.seeds(name)):
                (corpus / f"seed-{i}").write_bytes(seed)
        args.append(str(corpus))
    atheris.Setup(args, targets.TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()

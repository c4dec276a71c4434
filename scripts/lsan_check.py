"""pytest plugin for scripts/sanitize_tests.sh: when the session ends, collects garbage and
asks LeakSanitizer for a leak check while the interpreter is still whole, so memory that
Python keeps until exit (module caches, interned objects) is reachable and not reported;
what is reported then has no owner left.  The check at exit itself is turned off."""

from __future__ import annotations

import ctypes
import gc


def pytest_unconfigure(config):
    gc.collect()
    check = getattr(ctypes.CDLL(None), "__lsan_do_recoverable_leak_check", None)
    if check is not None and check():
        print("LeakSanitizer: leaks found (see the log)")

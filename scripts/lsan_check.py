"""pytest plugin for scripts/sanitize_tests.sh: asks LeakSanitizer for one leak check at the
end of the run, while the interpreter is still whole, so memory that Python keeps until exit
(module caches, interned objects) is reachable and not reported; what is reported then has no
owner left.  The check at exit itself is turned off (ASAN_OPTIONS leak_check_at_exit=0).

The check runs from an atexit callback, after pytest has returned, not inside pytest's own
hooks: CPython 3.11 keeps the local variables of running Python functions in a stack it maps
with mmap, which LeakSanitizer does not scan, so an object that only a running function's
local still holds (pytest's session objects, a traceback and its frames) would be reported
as a leak from inside a hook.  After pytest has returned, those functions are gone and such
objects are either freed or held from scanned memory."""

from __future__ import annotations

import atexit
import ctypes
import gc


def _leak_check() -> None:
    gc.collect()
    check = getattr(ctypes.CDLL(None), "__lsan_do_recoverable_leak_check", None)
    if check is not None and check():
        print("LeakSanitizer: leaks found (see the log)", flush=True)


def pytest_unconfigure(config):
    # Registered last, so it runs first at exit, before the interpreter tears anything down.
    atexit.register(_leak_check)

"""Makes "another thread empties the input list during a batch call" happen on every run.

A race left to a `threading.Timer` may fire before or after the call, so a test of it has to
accept either outcome and may test nothing.  Two ways here, each certain to act inside the call:

- `clear_from_thread`: the clearing thread is woken just before the call, with the switch
  interval raised so that it cannot take the GIL until the calling thread gives it up; the
  first place a batch gives up the GIL is once it holds its snapshot of the items, and then
  encodes them while the other thread empties the list and drops the last references.  The
  helper reports whether the clear came before the call returned (it does unless the OS did
  not wake the thread for the whole call: callers retry a few times).
- `clear_at_first_gc`: a `gc` callback empties the list at the first garbage collection that
  starts inside the call (collection threshold 1): inside the batch's first allocation of a
  container, before it has copied anything.  That was a use-after-free when the snapshot was
  `PyList_AsTuple`, which reads the item array before allocating (cpp/bindings/common.h).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable
from typing import Any


def clear_from_thread(items: list, call: Callable[[], Any], wait: float = 0.02) -> tuple[Any, bool]:
    """(call(), whether another thread emptied `items` before `call` returned).  Use a bound
    native method: Python code before the snapshot could give up the GIL too early.  `wait`
    is how long (seconds) the calling thread holds the GIL after waking the other one, for
    the OS to run it up to its wait for the GIL."""
    state = {"returned": False, "inside": False}
    go = threading.Event()

    def clear():
        go.wait()
        state["inside"] = not state["returned"]
        items.clear()

    thread = threading.Thread(target=clear)
    thread.start()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)  # no forced switch: the GIL changes hands only when released
    try:
        go.set()
        end = time.perf_counter() + wait
        while time.perf_counter() < end:  # holds the GIL: the woken thread now waits for it
            pass
        result = call()
        state["returned"] = True
    finally:
        sys.setswitchinterval(old)
        go.set()
        thread.join()
    return result, state["inside"]


def clear_at_first_gc(items: list, call: Callable[[], Any]) -> tuple[Any, bool]:
    """(call(), whether a gc callback emptied `items` while `call` ran)."""
    state = {"armed": False, "inside": False}

    def on_gc(phase, info):
        if phase == "start" and state["armed"] and items:
            items.clear()
            state["inside"] = True

    old = gc.get_threshold()
    gc.callbacks.append(on_gc)
    gc.set_threshold(1, 10, 10)
    try:
        state["armed"] = True
        result = call()
        state["armed"] = False
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(on_gc)
    return result, state["inside"]


def check_emptied_during_call(make_items: Callable[[], list], call: Callable[[list], Any], want: Any) -> None:
    """Both ways on fresh items: emptied by another thread (retried until it lands inside
    the call, up to 30 times), the result is `want`, the list as the call began; emptied
    inside the snapshot's allocation, the batch sees the list whole, before or after."""
    inside = []
    # A loaded machine may not run the woken thread in time (a niced test run on a busy
    # machine missed 30 tries of 20 ms): each try waits twice as long, up to 1.28 s.
    for attempt in range(30):
        items = make_items()
        got, cleared = clear_from_thread(items, lambda: call(items), wait=0.02 * 2 ** min(attempt, 6))
        assert got == want and items == []
        inside.append(cleared)
        if cleared:
            break
    assert any(inside), "the clearing thread never ran during the call"
    items = make_items()
    got, cleared = clear_at_first_gc(items, lambda: call(items))
    assert cleared and got in ([], want)

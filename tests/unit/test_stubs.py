"""The checked-in type stubs of the native module match the module."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest


def test_native_stubs_are_current():
    pytest.importorskip("nanobind.stubgen", reason="nanobind is needed to generate the stubs")
    script = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "gen_stubs.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr

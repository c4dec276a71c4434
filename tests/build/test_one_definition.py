"""The core has one definition per name: a link-time-optimized build with -Werror=odr
(CMake option TOKENFORGE_ODR_CHECK) fails when two different classes share a name, as
tf::TokenTable once did in training/ and models/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_core_links_with_werror_odr(tmp_path):
    cmake = shutil.which("cmake")
    if cmake is None or shutil.which("ninja") is None or shutil.which("c++") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("cmake, ninja and a C++ compiler are needed for the ODR check (pip install '.[test]')")
        pytest.skip("needs cmake, ninja and a C++ compiler")
    configure = [
        cmake, "-S", str(REPO), "-B", str(tmp_path), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
        "-DTOKENFORGE_ODR_CHECK=ON", f"-DPython_EXECUTABLE={sys.executable}",
    ]
    subprocess.run(configure, check=True, capture_output=True, text=True)
    build = subprocess.run([cmake, "--build", str(tmp_path)], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]

"""write_atomic: the new file gets the permissions open() would give it (mkstemp's 0o600
would make every written model private), a replaced file keeps its own, and a failed write
leaves the old file and no temporary behind."""

from __future__ import annotations

import os
import stat

import pytest

from tokenforge._files import write_atomic


def test_new_file_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.model", b"x")
        os.umask(0o077)
        write_atomic(tmp_path / "b.model", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.model").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "b.model").st_mode) == 0o600


def test_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "m.model"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "m.model"
    path.write_bytes(b"old")

    with pytest.raises(TypeError):
        write_atomic(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.model"]

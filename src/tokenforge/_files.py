"""Small file helpers shared by every format: atomic writes and hashed reads.

Example:
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_atomic(os.path.join(d, "x.txt"), b"hi")
    >>> open(os.path.join(d, "x.txt"), "rb").read()
    b'hi'
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading

_umask_lock = threading.Lock()


def file_mode_for(path: str) -> int:
    """The permission bits a file written at `path` should get: those of the file it
    replaces, else what open() would give a new file (0o666 less the umask).  mkstemp makes
    its files 0o600; without this, every file we write would be private to its owner."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        pass
    with _umask_lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Writes `data` to `path` through a temporary file in the same folder and a rename,
    so readers never see a half-written file and a failure leaves any old file intact.

    Raises:
        OSError: the folder is not writable or the disk is full.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            os.fchmod(f.fileno(), file_mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_checked(path: str | os.PathLike[str], expected_hash: str | None = None) -> bytes:
    """Reads a whole file and, if `expected_hash` is given, checks its sha256.

    Raises:
        OSError: the file cannot be read.
        ValueError: the hash does not match.
    """
    with open(path, "rb") as f:
        data = f.read()
    if expected_hash is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected_hash.lower():
            raise ValueError(f"{os.fspath(path)}: sha256 is {actual}, expected {expected_hash}")
    return data


def read_utf8(path: str | os.PathLike[str]) -> str:
    """Reads a whole file as UTF-8 text.

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not UTF-8 (the message names it and the first bad byte).
    """
    data = read_checked(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{os.fspath(path)}: not UTF-8 (byte {e.start}: {e.reason})") from None

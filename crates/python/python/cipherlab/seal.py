"""The file container of ``cipherlab encrypt`` and ``cipherlab decrypt`` (docs/format.md).

A container is an authenticated header and the data in 64 KiB chunks, each sealed with an
AEAD of the catalogue; truncation, reordering and any change are detected, and no
plaintext of a chunk that failed is ever returned. The key is a key file
(:class:`KeyFile`, what ``cipherlab keygen`` writes) or a passphrase (Argon2id).

* :func:`encrypt_file` / :func:`decrypt_file`: whole files, on every core, the output
  appearing only once complete;
* :func:`encrypt` / :func:`decrypt`: bytes in memory;
* :class:`SealWriter` / :class:`SealReader`: file-like objects over any binary file, for
  streams (``json.dump`` into one, ``json.load`` out of the other);
* :func:`open`: like ``gzip.open``, for a path.

Files written here open with ``cipherlab decrypt`` and the reverse.
"""

import io
import os
import tempfile
from typing import IO, Any, Optional, Union

from ._cipherlab import (
    KeyFile,
    SealReaderCore,
    SealWriterCore,
    decrypt,
    decrypt_file,
    encrypt,
    encrypt_file,
)

__all__ = ["KeyFile", "SealReader", "SealWriter", "decrypt", "decrypt_file", "encrypt", "encrypt_file", "open"]

_Secret = Union[KeyFile, str, "os.PathLike[str]", None]


class SealWriter(io.RawIOBase):
    """Encrypts everything written to it into ``file`` (any binary file object).

    ``close()`` seals the final chunk; a writer left unclosed gives a stream that
    decrypts to an error ("truncated"), never to shortened plaintext. ``file`` is not
    closed (as ``gzip.GzipFile(fileobj=...)``). Keyword arguments: ``key_file`` (a
    :class:`KeyFile` or its path) or ``passphrase``; ``cipher`` (an AEAD of the catalogue;
    default: the key file's, or AES-256-GCM/ChaCha20-Poly1305 for a passphrase);
    ``chunk_kib``; ``argon2_memory_mib``, ``argon2_passes``, ``argon2_lanes``,
    ``allow_weak_argon2``; ``provider``.
    """

    def __init__(self, file: IO[bytes], **options: Any) -> None:
        super().__init__()
        self._core = SealWriterCore(file, **options)

    @property
    def cipher(self) -> str:
        """The cipher's catalogue name."""
        return self._core.cipher

    def writable(self) -> bool:
        """True: a SealWriter is written to."""
        return True

    def write(self, data: Any) -> int:
        """Encrypts ``data`` (any buffer) into the stream; returns its length. Full chunks
        are sealed and written as they fill; the last one at :meth:`close`."""
        if self.closed:
            raise ValueError("write to a closed SealWriter")
        return self._core.write(data)

    def close(self) -> None:
        """Seals the last chunk and ends the stream: only a closed writer has written a
        complete container. Does not close the underlying file."""
        if not self.closed:
            try:
                self._core.finish()
            finally:
                super().close()

    def __del__(self) -> None:
        # Being garbage-collected is not a clean end (an exception may have cut the
        # writing short): leave the stream unfinished, so it fails to decrypt as
        # truncated, rather than seal what may be part of the data as if it were all.
        if not self.closed:
            io.RawIOBase.close(self)


class SealReader(io.RawIOBase):
    """Decrypts a container read from ``file``; reads return plaintext only after its
    chunk verified, and a modified or truncated stream raises :class:`cipherlab.InvalidTag`.

    The header is read and authenticated at once (Argon2id runs then for a passphrase).
    Keyword arguments: ``key_file`` or ``passphrase``; ``argon2_max_memory_mib`` and
    ``argon2_max_passes`` (the most a header may ask for; raise them only for files you
    trust); ``provider``.
    """

    def __init__(self, file: IO[bytes], **options: Any) -> None:
        super().__init__()
        self._core = SealReaderCore(file, **options)

    @property
    def cipher(self) -> str:
        """The cipher's catalogue name."""
        return self._core.cipher

    def readable(self) -> bool:
        """True: a SealReader is read from."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Fills ``buffer`` with verified plaintext; returns the byte count (0 at the end
        of a complete stream). Raises InvalidTag on a modified or truncated stream."""
        if self.closed:
            raise ValueError("read from a closed SealReader")
        return self._core.readinto(buffer)


class _AtomicFile(io.BufferedWriter):
    """A temporary file beside ``path`` that replaces it on a clean close, and is removed
    if the ``with`` block raised: the container at ``path`` appears whole or not at all."""

    def __init__(self, path: "Union[str, os.PathLike[str]]") -> None:
        self._dest = os.fspath(path)
        fd, self._tmp = tempfile.mkstemp(prefix=".cipherlab-", dir=os.path.dirname(os.path.abspath(self._dest)))
        super().__init__(io.FileIO(fd, "wb"))

    def commit(self) -> None:
        self.flush()
        os.fsync(self.fileno())
        super().close()
        os.replace(self._tmp, self._dest)

    def discard(self) -> None:
        super().close()
        try:
            os.unlink(self._tmp)
        except FileNotFoundError:
            pass


class _SealedPath(SealWriter):
    """:class:`SealWriter` into an :class:`_AtomicFile` it owns."""

    def __init__(self, path: "Union[str, os.PathLike[str]]", **options: Any) -> None:
        self._file = _AtomicFile(path)
        try:
            super().__init__(self._file, **options)
        except BaseException:
            self._file.discard()
            raise

    def close(self) -> None:
        if self.closed:
            return
        try:
            super().close()
            self._file.commit()
        except BaseException:
            self._file.discard()
            raise

    def __del__(self) -> None:
        if not self.closed:
            io.RawIOBase.close(self)
            self._file.discard()

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if kind is not None:  # the block failed: keep nothing
            if not self.closed:
                io.RawIOBase.close(self)
            self._file.discard()
            return None
        self.close()
        return None


class _OpenedPath(SealReader):
    """:class:`SealReader` over a file it opened and closes."""

    def __init__(self, path: "Union[str, os.PathLike[str]]", **options: Any) -> None:
        self._file = io.open(path, "rb")
        try:
            super().__init__(self._file, **options)
        except BaseException:
            self._file.close()
            raise

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._file.close()


def open(path: "Union[str, os.PathLike[str]]", mode: str = "rb", **options: Any) -> Union[SealReader, SealWriter]:
    """Opens a container at ``path`` for reading (``"rb"``) or writing (``"wb"``), as
    ``gzip.open`` does, with the keyword arguments of :class:`SealReader` or
    :class:`SealWriter`. A file opened for writing appears at ``path`` only when closed
    without error (in a ``with`` block: when the block ends normally)."""
    if mode in ("rb", "r"):
        return _OpenedPath(path, **options)
    if mode in ("wb", "w"):
        return _SealedPath(path, **options)
    raise ValueError(f"mode must be 'rb' or 'wb', not {mode!r}")

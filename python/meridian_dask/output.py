"""Where the result goes: one file written atomically and streamed (as `meridian buffer` writes it), standard
output, or a folder of parts (`-o DIR/`: GeoJSON text sequences a next Dask step can read, e.g.
`dask.bag.read_text("DIR/*.geojsons")`), made in a temporary folder beside it and renamed into place at the end."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

from .results import Delivery


class WriteError(Exception):
    """The result cannot be written (its disk is full, …): the message names the output, as `meridian buffer`'s
    does ("cannot write out.geojson: No space left on device")."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
        self.status = 1


class Output:
    """The result's destination: `begin()`, `write()` bytes (single file or stdout), then `commit()`, or
    `abort()` on failure (nothing is left behind)."""

    def __init__(self, path: str | None):
        self.path = path
        self.is_folder = bool(path) and (path.endswith("/") or os.path.isdir(path))
        self._file = None
        self._temporary: str | None = None
        self.spool: str | None = None

    @property
    def extension(self) -> str:
        """The file's extension ("" for standard output or a folder)."""
        if not self.path or self.is_folder:
            return ""
        return os.path.splitext(self.path)[1].lower().lstrip(".")

    def begin(self) -> str | None:
        """Opens the temporary file (or folder, whose path is returned for the part files), and makes the spool: a
        folder beside it where workers that can see it leave their pieces (`tasks.deliver`), so that the pieces of
        one file are copied from disk rather than sent through Dask."""
        if not self.path:
            self.spool = tempfile.mkdtemp(prefix="meridian-dask-spool-")
            return None
        target = os.path.abspath(self.path.rstrip("/") or self.path)
        parent = os.path.dirname(target)
        if not os.path.isdir(parent):
            raise OSError(f"cannot write {self.path}: No such file or directory")
        if self.is_folder:
            self._temporary = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".", dir=parent)
            return self._temporary
        descriptor, self._temporary = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", dir=parent)
        self._file = os.fdopen(descriptor, "wb", buffering=1 << 20)
        self.spool = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".spool-", dir=parent)
        return None

    def failure(self, reason: str) -> WriteError:
        """The error of a write to the output that failed for `reason` (e.g. "No space left on device")."""
        return WriteError(f"cannot write {self.path or 'standard output'}: {reason}")

    def write(self, data: bytes) -> None:
        """Appends bytes to the file (or standard output)."""
        if not data:
            return
        try:
            if self._file is not None:
                self._file.write(data)
            else:
                sys.stdout.buffer.write(data)
        except OSError as e:
            raise self.failure(e.strerror or str(e)) from None

    def write_piece(self, piece: Delivery) -> int:
        """Appends a piece a task delivered (`tasks.deliver`): a file in the spool (copied, then removed) or bytes;
        returns its size. A piece the task could not put in the spool beside the output (`failed`) is this output's
        write failure."""
        if piece.failed:
            raise self.failure(piece.failed)
        if piece.data is not None:
            self.write(piece.data)
            return len(piece.data)
        path = piece.path
        size = os.path.getsize(path)
        try:
            with open(path, "rb") as source:
                if self._file is not None:
                    self._file.flush()
                    offset = 0
                    while offset < size:
                        offset += os.sendfile(self._file.fileno(), source.fileno(), offset, size - offset)
                else:
                    shutil.copyfileobj(source, sys.stdout.buffer, 1 << 20)
        except OSError as e:
            raise self.failure(e.strerror or str(e)) from None
        os.unlink(path)
        return size

    def commit(self) -> None:
        """Renames the finished file or folder into place (replacing what was there)."""
        try:
            self._commit()
        except OSError as e:
            raise self.failure(e.strerror or str(e)) from None

    def _commit(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            os.chmod(self._temporary, 0o644)
            os.replace(self._temporary, self.path)
        elif self.is_folder and self._temporary:
            target = self.path.rstrip("/")
            if os.path.isdir(target):
                shutil.rmtree(target)
            os.replace(self._temporary, target)
        elif not self.path:
            sys.stdout.buffer.flush()
        self._temporary = None
        self._remove_spool()

    def _remove_spool(self) -> None:
        if self.spool:
            shutil.rmtree(self.spool, ignore_errors=True)
            self.spool = None

    def abort(self) -> None:
        """Removes what was written."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._temporary:
            if os.path.isdir(self._temporary):
                shutil.rmtree(self._temporary, ignore_errors=True)
            elif os.path.exists(self._temporary):
                os.unlink(self._temporary)
            self._temporary = None
        self._remove_spool()

"""Result files written whole, or not at all.

Paths are checked before a simulation starts (`check_file`, `check_dir`), so a bad path costs
no run. A single file is written to a temporary file beside it and renamed into place; a set of
files (a run's results and its machine.toml) is written into a temporary directory and moved
into the output directory with Ctrl-C held back for the moves, so an interrupted or failed run
leaves either the old set or the new one, never a mix. Files already in an output directory,
and an existing file named for a single output, are not replaced unless asked (``--force``);
a file that appears while a run goes on (another run writing to the same directory) is never
replaced silently either.

Symbolic links are never followed: a link named as an output file is replaced by the file
(with ``--force``), and a link named as an output directory is refused, so a result cannot be
written somewhere other than where the command line says. Temporary files and directories
are created by `tempfile` beside their target, with unpredictable names, and removed when
the run fails or is interrupted (`temporary_beside` for writers outside Python).

Every command's ``--out``, ``--trace`` and ``--plot`` go through this module (each
command's module under `cellblade.cli`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path


class OutputError(Exception):
    """An output path that cannot be written: names the flag, the path and why."""


def check_file(flag: str, path: Path, *, suffix: str | None = None, force: bool = True) -> None:
    """Refuses `path` for `flag` if it cannot become a file: a directory, a missing or
    unwritable parent, (with `suffix`) another file type, or (without `force`) an existing
    file or link. A link is never followed: it is what gets replaced."""
    if suffix is not None and path.suffix.lower() != suffix:
        raise OutputError(
            f"{flag} {path}: the file is written as {suffix[1:].upper()}: "
            f"give a name ending in {suffix}"
        )
    if path.is_symlink():
        if not force:
            raise OutputError(
                f"{flag} {path}: is a symbolic link: pass --force to replace the link "
                "with the file (its target is left alone)"
            )
        _check_parent(flag, path, path.parent)
        return
    if path.is_dir():
        raise OutputError(f"{flag} {path}: is a directory, expected a file")
    if path.exists() and not path.is_file():
        if not os.access(path, os.W_OK):
            raise OutputError(f"{flag} {path}: not writable")
        return  # a device or pipe (/dev/stdout): written in place
    if path.exists() and not force:
        raise OutputError(
            f"{flag} {path}: exists from an earlier run: pass --force to replace it, "
            "or choose another name"
        )
    _check_parent(flag, path, path.parent)


def check_dir(flag: str, path: Path, names: Sequence[str], *, force: bool) -> None:
    """Refuses `path` for `flag` if the files `names` cannot be written into it: an existing
    non-directory or a symbolic link, an unwritable place, or (without `force`) a file of
    `names` already there."""
    if path.is_symlink():
        raise OutputError(
            f"{flag} {path}: is a symbolic link: give the directory itself "
            "(results are never written through a link)"
        )
    if path.exists() and not path.is_dir():
        raise OutputError(f"{flag} {path}: is a file, expected a directory")
    # "--out params.toml" would make a directory of that name: the user meant a file.
    suffixes = {Path(name).suffix.lower() for name in names} - {""}
    if not path.exists() and path.suffix.lower() in suffixes:
        raise OutputError(
            f"{flag} {path}: names a file, but {flag} is the directory that receives "
            f"{', '.join(names)}: give a directory name"
        )
    _check_parent(flag, path, path)
    if not force:
        for name in names:
            if (path / name).exists():
                raise OutputError(
                    f"{flag} {path}: {path / name} exists from an earlier run: "
                    "pass --force to replace it, or choose another directory"
                )


def _check_parent(flag: str, path: Path, directory: Path) -> None:
    """The nearest existing ancestor of `directory` (where `path` goes) must be a writable
    directory; errors name `path`, as the user typed it."""
    existing = directory.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{flag} {path}: {existing} is a file, expected a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{flag} {path}: {existing} is not writable")
    # Permission bits do not tell everything (root in /proc, a read-only mount): creating a
    # file there does, before a run that could take minutes.
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".cellblade-probe."):
            pass
    except OSError as error:
        reason = (error.strerror or str(error)).lower()
        raise OutputError(f"{flag} {path}: {existing} is not writable: {reason}") from None


def write_file(flag: str, path: Path, write: Callable[[Path], None]) -> Path:
    """Calls `write` on a temporary file beside `path`, then renames it to `path` (a link there
    is replaced, not followed); a device or pipe is written in place. Any failure names `flag`
    and leaves no temporary file."""
    if not path.is_symlink() and path.exists() and not stat.S_ISREG(path.stat().st_mode):
        _named(flag, path, lambda: write(path))
        return path
    _named(flag, path, lambda: path.parent.mkdir(parents=True, exist_ok=True))
    # The temporary name ends like the file's, for writers that choose the format by suffix.
    handle, temporary = _named(
        flag,
        path,
        lambda: tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.stem}.", suffix=f".part{path.suffix}"
        ),
    )
    os.close(handle)
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's 0600 would outlive the rename
        _named(flag, path, lambda: write(Path(temporary)))
        with held_interrupts():
            os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def temporary_beside(flag: str, path: Path, *, leftovers: Sequence[str] = ()) -> Iterator[Path]:
    """A new file with an unpredictable name beside `path`, for a writer outside Python (the
    core's trace) to fill; renamed to `path` when the block ends cleanly, removed (with any
    `leftovers`, suffixes the writer adds to the name) when it fails or is interrupted. A
    device or pipe (/dev/stdout) is itself the file to write."""
    if not path.is_symlink() and path.exists() and not stat.S_ISREG(path.stat().st_mode):
        yield path
        return
    _named(flag, path, lambda: path.parent.mkdir(parents=True, exist_ok=True))
    handle, name = _named(
        flag,
        path,
        lambda: tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix),
    )
    os.close(handle)
    temporary = Path(name)
    try:
        os.chmod(temporary, 0o666 & ~_umask())
        yield temporary
        with held_interrupts():
            _named(flag, path, lambda: os.replace(temporary, path))
    finally:
        for leftover in [temporary, *(Path(f"{temporary}{s}") for s in leftovers)]:
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


@contextlib.contextmanager
def staged(flag: str, directory: Path, names: Sequence[str], *, force: bool) -> Iterator[Path]:
    """A temporary directory beside `directory` to write the files `names` into; on a clean
    exit they are moved into `directory` together (see the module docs), else dropped."""
    _named(flag, directory, lambda: directory.parent.mkdir(parents=True, exist_ok=True))
    temporary = Path(
        _named(
            flag,
            directory,
            lambda: tempfile.mkdtemp(
                dir=directory.parent, prefix=f".{directory.name}.", suffix=".part"
            ),
        )
    )
    try:
        yield temporary
        missing = [name for name in names if not (temporary / name).is_file()]
        if missing:
            raise RuntimeError(f"staged output lacks {missing}")
        with held_interrupts():
            _named(flag, directory, lambda: _commit(flag, temporary, directory, names, force))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _commit(flag: str, temporary: Path, directory: Path, names: Sequence[str], force: bool) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    if force:
        for name in names:
            os.replace(temporary / name, directory / name)
        return
    placed = []
    try:
        for name in names:
            # A hard link is created only where no file is: a run that wrote meanwhile is kept.
            try:
                os.link(temporary / name, directory / name)
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: look, then rename
                if (directory / name).exists():
                    raise FileExistsError(name) from None
                os.replace(temporary / name, directory / name)
            placed.append(directory / name)
    except FileExistsError:
        for path in placed:
            path.unlink()
        raise OutputError(
            f"{flag} {directory}: {directory / name} was written by another run "
            "meanwhile: not replaced (pass --force to replace it)"
        ) from None


def _named(flag: str, path: Path, action: Callable):
    """Runs `action`; an OSError becomes an OutputError naming `flag` and `path`."""
    try:
        return action()
    except OutputError:
        raise
    except OSError as error:
        reason = (error.strerror or str(error)).lower()
        raise OutputError(f"{flag} {path}: cannot write: {reason}") from None


@contextlib.contextmanager
def held_interrupts() -> Iterator[None]:
    """Holds Ctrl-C back until the block ends (then raises KeyboardInterrupt), so that a short
    sequence of renames is never cut in the middle. Only the main thread can do this."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt

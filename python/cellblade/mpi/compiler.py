"""`cellblade mpicc`: the system C compiler with the project's ``mpi.h`` and rank library.

The library is compiled once per source version and compiler into a cache directory
(``$CELLBLADE_CACHE``, else ``$XDG_CACHE_HOME/cellblade``, else ``~/.cache/cellblade``), as a
static archive, so programs built with it need nothing at run time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCES = Path(__file__).resolve().parent
# What programs include: mpi.h, and the calls it declares unavailable.
PUBLIC_HEADERS = ("mpi.h", "mpi_missing.h")
# Flags that stop before linking: no library to add.
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM"}


def _compiler() -> str:
    return os.environ.get("CC", "cc")


def _cache_root() -> Path:
    if os.environ.get("CELLBLADE_CACHE"):
        return Path(os.environ["CELLBLADE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cellblade"


def library_dir() -> Path:
    """The directory holding ``mpi.h`` and ``libcellblade_mpi.a``, built if needed."""
    cc = _compiler()
    digest = hashlib.sha256(cc.encode())
    for path in _sources():
        digest.update(path.name.encode() + path.read_bytes())
    target = _cache_root() / f"mpi-{digest.hexdigest()[:16]}"
    if (target / "libcellblade_mpi.a").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        build = Path(tmp)
        for header in PUBLIC_HEADERS:
            shutil.copy(SOURCES / header, build / header)
        objects = []
        for source in (p for p in _sources() if p.suffix == ".c"):
            obj = build / f"{source.stem}.o"
            _check(
                [
                    cc,
                    "-std=c99",
                    "-D_POSIX_C_SOURCE=200809L",
                    "-O2",
                    "-fPIC",
                    "-Wall",
                    "-I",
                    str(SOURCES),
                    "-c",
                    str(source),
                    "-o",
                    str(obj),
                ]
            )
            objects.append(obj)
        _check(["ar", "rcs", str(build / "libcellblade_mpi.a"), *map(str, objects)])
        for obj in objects:
            obj.unlink()
        try:
            os.replace(build, target)
        except OSError:
            if not (target / "libcellblade_mpi.a").exists():  # not a concurrent build's win
                raise
        build.mkdir(exist_ok=True)  # for TemporaryDirectory's clean-up
    return target


def _sources() -> list[Path]:
    """The header and the library's C files and private headers, in a fixed order."""
    return sorted(p for p in SOURCES.iterdir() if p.suffix in (".c", ".h"))


def _check(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building the MPI library failed: {' '.join(command)}\n{done.stderr}")


def mpicc_command(args: list[str]) -> list[str]:
    """The compiler command `cellblade mpicc ARGS` runs."""
    lib = library_dir()
    command = [_compiler(), "-I", str(lib), *args]
    if not _NO_LINK.intersection(args):
        command += ["-L", str(lib), "-lcellblade_mpi"]
    return command


def mpicc(args: list[str]) -> int:
    """Compile and link like mpicc; returns the compiler's exit code."""
    return subprocess.run(mpicc_command(args)).returncode

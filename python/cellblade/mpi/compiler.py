"""`cellblade mpicc`: the system C compiler with the project's ``mpi.h`` and rank library.

The library is the C part of the repository, ``libmpi/`` (``include/`` for programs,
``src/`` by area). The build copies it into this package (``cellblade/mpi/libmpi``,
scripts/build-extension.sh), so an installed package carries it; a source checkout's own
``libmpi/`` wins, so edits to it take effect without a rebuild. It is compiled once per
source version and compiler into the cache, as a static archive (``cellblade.c_library``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cellblade import c_library

PACKAGE = Path(__file__).resolve().parent
# A source checkout's libmpi/ (python/cellblade/mpi is three levels below the top), then the
# copy the build installs into the package.
_LIBRARY_ROOTS = (PACKAGE.parents[2] / "libmpi", PACKAGE / "libmpi")
# Flags that stop before linking: no library to add.
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM"}


def library_root() -> Path:
    """The C library's directory: ``include/`` and ``src/``."""
    return c_library.source_root("the MPI C library", _LIBRARY_ROOTS, "include/mpi.h")


def _compiler() -> str:
    return os.environ.get("CC", "cc")


def library_dir() -> Path:
    """The directory holding ``mpi.h`` and ``libcellblade_mpi.a``, built if needed."""
    root = library_root()
    return c_library.archive_dir(
        "the MPI library",
        root,
        ("include", "src"),
        [
            _compiler(),
            "-std=c99",
            "-D_POSIX_C_SOURCE=200809L",
            "-O2",
            "-fPIC",
            "-Wall",
            "-I",
            str(root / "include"),
            "-I",
            str(root / "src"),
        ],
        "ar",
        "libcellblade_mpi.a",
        headers=root / "include",
    )


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

"""`cellblade mpicc`: the system C compiler with the project's ``mpi.h`` and rank library.

The library is the C part of the repository, ``libmpi/`` (``include/`` for programs,
``src/`` by area). The build copies it into this package (``cellblade/mpi/libmpi``,
scripts/build-extension.sh), so an installed package carries it; a source checkout's own
``libmpi/`` wins, so edits to it take effect without a rebuild. It is compiled once per
source version and compiler into a cache directory (``$CELLBLADE_CACHE``, else
``$XDG_CACHE_HOME/cellblade``, else ``~/.cache/cellblade``), as a static archive, so programs
built with it need nothing at run time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# A source checkout's libmpi/ (python/cellblade/mpi is three levels below the top), then the
# copy the build installs into the package.
_LIBRARY_ROOTS = (PACKAGE.parents[2] / "libmpi", PACKAGE / "libmpi")
# Flags that stop before linking: no library to add.
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM"}


def library_root() -> Path:
    """The C library's directory: ``include/`` and ``src/``."""
    for root in _LIBRARY_ROOTS:
        if (root / "include" / "mpi.h").is_file():
            return root
    raise RuntimeError(
        "the MPI C library is missing: neither "
        + " nor ".join(str(r) for r in _LIBRARY_ROOTS)
        + " holds include/mpi.h (reinstall cellblade)"
    )


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
    root = library_root()
    digest = hashlib.sha256(cc.encode())
    for path in _sources(root):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    target = _cache_root() / f"mpi-{digest.hexdigest()[:16]}"
    if (target / "libcellblade_mpi.a").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        build = Path(tmp)
        for header in (root / "include").glob("*.h"):
            shutil.copy(header, build / header.name)
        objects = []
        for source in (p for p in _sources(root) if p.suffix == ".c"):
            # src/pt2pt/pt2pt.c -> pt2pt_pt2pt.o: one object per source, whatever its folder.
            obj = build / ("_".join(source.relative_to(root / "src").with_suffix(".o").parts))
            _check(
                [
                    cc,
                    "-std=c99",
                    "-D_POSIX_C_SOURCE=200809L",
                    "-O2",
                    "-fPIC",
                    "-Wall",
                    "-I",
                    str(root / "include"),
                    "-I",
                    str(root / "src"),
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


def _sources(root: Path) -> list[Path]:
    """The public headers and the library's C files and private headers, in a fixed order."""
    return sorted(
        p for d in ("include", "src") for p in (root / d).rglob("*") if p.suffix in (".c", ".h")
    )


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

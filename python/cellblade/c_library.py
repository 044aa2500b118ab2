"""The project's C libraries, compiled once per source version and compiler into a cache.

The MPI rank library (``libmpi/``) and the Cell SDK libraries (``sdk/``) are C sources that
programs link statically: `cellblade mpicc`, `cellblade spu-gcc` and `ppu-gcc` compile them on
first use, for the compiler at hand, into a directory of the cache (``$CELLBLADE_CACHE``, else
``$XDG_CACHE_HOME/cellblade``, else ``~/.cache/cellblade``) named by a digest of the compiler
command and every source, so an edit or another compiler builds anew and programs built with
them need nothing at run time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def cache_root() -> Path:
    if os.environ.get("CELLBLADE_CACHE"):
        return Path(os.environ["CELLBLADE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cellblade"


def source_root(what: str, roots: tuple[Path, ...], marker: str) -> Path:
    """The first of ``roots`` (a source checkout's folder, then the copy the build installs
    into the package) that holds ``marker``; a RuntimeError naming ``what`` if none does."""
    for root in roots:
        if (root / marker).is_file():
            return root
    raise RuntimeError(
        f"{what} is missing: neither "
        + " nor ".join(str(r) for r in roots)
        + f" holds {marker} (reinstall cellblade)"
    )


def sources(root: Path, folders: tuple[str, ...]) -> list[Path]:
    """The C files and headers under ``root``'s ``folders``, in a fixed order."""
    return sorted(p for d in folders for p in (root / d).rglob("*") if p.suffix in (".c", ".h"))


def archive_dir(
    what: str,
    root: Path,
    folders: tuple[str, ...],
    compile_command: list[str],
    archiver: str,
    archive: str,
    headers: Path | None = None,
) -> Path:
    """The cache directory holding ``archive`` (built from every C file under ``root``'s
    ``folders`` with ``compile_command`` + ``-c SOURCE -o OBJECT``) and, when ``headers`` is
    given, a copy of its ``*.h``. ``what`` names the library in a failure's message."""
    digest = hashlib.sha256("\0".join(compile_command + [archiver]).encode())
    for path in sources(root, folders):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    target = cache_root() / f"{Path(archive).stem}-{digest.hexdigest()[:16]}"
    if (target / archive).exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        build = Path(tmp)
        if headers is not None:
            for header in headers.glob("*.h"):
                shutil.copy(header, build / header.name)
        objects = []
        for source in (p for p in sources(root, folders) if p.suffix == ".c"):
            # src/pt2pt/pt2pt.c -> src_pt2pt_pt2pt.o: one object per source, whatever its folder.
            obj = build / "_".join(source.relative_to(root).with_suffix(".o").parts)
            _check(what, [*compile_command, "-c", str(source), "-o", str(obj)])
            objects.append(obj)
        _check(what, [archiver, "rcs", str(build / archive), *map(str, objects)])
        for obj in objects:
            obj.unlink()
        try:
            os.replace(build, target)
        except OSError:
            if not (target / archive).exists():  # not a concurrent build's win
                raise
        build.mkdir(exist_ok=True)  # for TemporaryDirectory's clean-up
    return target


def shared_object(
    what: str, root: Path, files: tuple[str, ...], compile_command: list[str], name: str
) -> Path:
    """The path of shared object ``name`` in the cache, built from ``files`` (paths under
    ``root``; the C files compiled and linked with ``compile_command`` + ``-shared``, every file
    digested) on first use. ``what`` names it in a failure's message."""
    digest = hashlib.sha256("\0".join(compile_command).encode())
    for file in files:
        digest.update(file.encode() + (root / file).read_bytes())
    target = cache_root() / f"{Path(name).stem}-{digest.hexdigest()[:16]}"
    if (target / name).exists():
        return target / name
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        build = Path(tmp)
        sources = [str(root / f) for f in files if f.endswith(".c")]
        _check(what, [*compile_command, "-shared", "-o", str(build / name), *sources])
        try:
            os.replace(build, target)
        except OSError:
            if not (target / name).exists():  # not a concurrent build's win
                raise
        build.mkdir(exist_ok=True)  # for TemporaryDirectory's clean-up
    return target / name


def _check(what: str, command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building {what} failed: {' '.join(command)}\n{done.stderr}")

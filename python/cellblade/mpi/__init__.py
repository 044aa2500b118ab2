"""MPI on the simulated SPEs (seed 004): compile C programs against the project's own
``mpi.h`` and run them on the simulated blade, one OS process per rank.

    cellblade mpicc -O2 ring.c -o ring           # cc with the header and the rank library
    cellblade mpirun -n 4 ./ring ARGS...          # rank i on SPE i; times are simulated

``mpirun`` is :func:`cellblade.mpi.launcher.mpirun`, ``mpicc`` is
:func:`cellblade.mpi.compiler.mpicc`; the C library it compiles (``mpi.h`` and the rank side)
is the repository's ``libmpi/``, which the build copies into this package.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["JobResult", "library_dir", "mpicc", "mpicc_command", "mpirun"]

# Loaded on first use, so that `cellblade --help` does not load the compiler driver and the
# launcher (subprocess, sockets): each name's module.
_HOMES = {
    "library_dir": "compiler",
    "mpicc": "compiler",
    "mpicc_command": "compiler",
    "JobResult": "launcher",
    "mpirun": "launcher",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'cellblade.mpi' has no attribute {name!r}")
    return getattr(importlib.import_module(f"cellblade.mpi.{_HOMES[name]}"), name)

"""MPI on the simulated SPEs (seed 004): compile C programs against the project's own
``mpi.h`` and run them on the simulated blade, one OS process per rank.

    cellblade mpicc -O2 ring.c -o ring           # cc with the header and the rank library
    cellblade mpirun -n 4 ./ring ARGS...          # rank i on SPE i; times are simulated

``mpirun`` is :func:`cellblade.mpi.launcher.mpirun`, ``mpicc`` is
:func:`cellblade.mpi.compiler.mpicc`; ``mpi.h`` and ``cellblade_mpi.c`` (the rank side) ship
in this package.
"""

from cellblade.mpi.compiler import library_dir, mpicc, mpicc_command
from cellblade.mpi.launcher import JobResult, mpirun

__all__ = ["JobResult", "library_dir", "mpicc", "mpicc_command", "mpirun"]

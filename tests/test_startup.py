"""`cellblade --help` starts fast: importing the CLI loads no plotting, Dask, tqdm, numpy, MPI
bench, compiler driver or launcher; the commands that need them load them."""

import subprocess
import sys

HEAVY = (
    "matplotlib",
    "dask",
    "tqdm",
    "numpy",
    "cellblade.mpi.bench",
    "cellblade.mpi.compiler",
    "cellblade.mpi.launcher",
    "cellblade.splits",
    "cellblade.sweep",
)


def loaded_after(statement: str) -> set[str]:
    """The heavy modules loaded by a fresh interpreter after `statement`."""
    probe = f"import sys\n{statement}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_importing_the_cli_loads_none_of_the_heavy_modules():
    assert loaded_after("import cellblade.cli") == set()


def test_the_lazy_names_still_resolve_where_they_are_used():
    # The probe can see a module load: the MPI package's names load their modules on use.
    assert loaded_after("import cellblade.mpi as m\nm.mpirun") == {"cellblade.mpi.launcher"}
    assert loaded_after("from cellblade.mpi import mpicc") == {"cellblade.mpi.compiler"}
    assert loaded_after("import cellblade.parallel as p\np.run([], jobs=1)") == {"tqdm"}


def test_an_unknown_name_of_the_mpi_package_is_an_attribute_error():
    import cellblade.mpi

    try:
        cellblade.mpi.nonexistent  # noqa: B018
    except AttributeError as error:
        assert "has no attribute 'nonexistent'" in str(error)
    else:
        raise AssertionError("no AttributeError")

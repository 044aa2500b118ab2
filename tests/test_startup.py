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
    "cellblade.sdk.bench",
    "cellblade.sdk.launcher",
    "cellblade.sdk.toolchain",
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


def test_help_loads_no_command_module():
    """`cellblade --help` and `--version` read the command table (cli/base.py) only: no
    command's module, no machine-file reader, no schedule type, no importlib.metadata for
    --help. A named command loads its own module and no other command's."""
    probe = (
        "import sys, contextlib, io\n"
        "from cellblade.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(sys.argv[1:])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('cellblade')"
        " or m == 'importlib.metadata')))"
    )

    def loaded(*argv: str) -> set[str]:
        run = [sys.executable, "-c", probe, *argv]
        return set(subprocess.run(run, capture_output=True, text=True, check=True).stdout.split())

    assert loaded("--help") == {
        "cellblade",
        "cellblade._core",
        "cellblade.cli",
        "cellblade.cli.base",
    }
    assert "importlib.metadata" in loaded("--version")
    coll = {m for m in loaded("coll", "--help") if m.startswith("cellblade.cli.")}
    # coll's --algo auto is the model's: its module is coll's to load
    assert coll == {
        "cellblade.cli.base",
        "cellblade.cli.common",
        "cellblade.cli.coll",
        "cellblade.cli.model",
    }
    # Each MPI command is a module of its own (issue 23): pingpong loads no mpirun or mpicc.
    for command in ("pingpong", "mpirun", "mpicc"):
        mine = {m for m in loaded(command, "--help") if m.startswith("cellblade.cli.")}
        assert f"cellblade.cli.{command}" in mine, command
        assert mine <= {"cellblade.cli.base", "cellblade.cli.common", f"cellblade.cli.{command}"}

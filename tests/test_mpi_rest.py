"""The rest of MPI-1 in the C library (issue 22): groups and intercommunicators, every type
constructor and MPI_Pack, persistent, buffered and ready requests, Waitsome/Testsome,
Alltoallv and Reduce_scatter, topologies, attributes, error handlers and the environment;
and a call the library lacks fails at compile time naming cellblade. The programs are
libmpi/tests/*.c, each printing "No Errors"."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


@pytest.mark.parametrize(
    "name, ranks",
    [
        ("groups_intercomm", 1),
        ("groups_intercomm", 2),
        ("groups_intercomm", 5),
        ("groups_intercomm", 16),
        ("types_pack", 2),
        ("types_pack", 3),
        ("requests_more", 1),
        ("requests_more", 2),
        ("requests_more", 7),
        ("topo_attr_env", 1),
        ("topo_attr_env", 6),
        ("topo_attr_env", 12),
    ],
)
def test_program_passes(build, name, ranks):
    done = run_cli("mpirun", "-n", str(ranks), build(name))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "No Errors\n"
    assert done.stderr == ""


@pytest.mark.parametrize(
    "call",
    [
        "MPI_Mprobe(0, 0, MPI_COMM_WORLD, &r, MPI_STATUS_IGNORE)",
        "MPI_Win_free(&r)",
        "PMPI_Ibarrier(MPI_COMM_WORLD, &r)",
    ],
)
def test_a_call_the_library_lacks_fails_at_compile_time_naming_cellblade(tmp_path, call):
    src = tmp_path / "lacks.c"
    src.write_text(
        '#include "mpi.h"\nint main(int c, char **v) { MPI_Request r = MPI_REQUEST_NULL; int w = 0;\n'
        f"MPI_Init(&c, &v); {call}; (void)w; MPI_Finalize(); return 0; }}\n"
    )
    done = run_cli("mpicc", str(src), "-o", str(tmp_path / "lacks"))
    assert done.returncode != 0
    name = call.split("(")[0]
    assert f"{name} is not implemented by cellblade" in done.stderr, done.stderr
    assert "implicit declaration" not in done.stderr


def test_every_call_declared_is_defined(tmp_path):
    """mpi.h declares nothing the library lacks: each MPI_X it declares links."""
    from cellblade.mpi import compiler

    header = (compiler.library_root() / "include" / "mpi.h").read_text()
    names = sorted(set(re.findall(r"^CB_DECLARE\((?:int|double), (\w+),", header, re.M)))
    assert len(names) > 160
    src = tmp_path / "all.c"
    src.write_text(
        '#include "mpi.h"\nvoid *calls[] = {\n'
        + "".join(f"    (void *)MPI_{n}, (void *)PMPI_{n},\n" for n in names)
        + "};\nint main(void) { return calls[0] == 0; }\n"
    )
    done = run_cli("mpicc", str(src), "-o", str(tmp_path / "all"))
    assert done.returncode == 0, done.stderr


def test_the_library_is_found_in_the_checkout_then_in_the_package(tmp_path, monkeypatch):
    """`cellblade mpicc` compiles a source checkout's libmpi/ when there is one, else the copy
    the build installed into the package, and says so when neither is there."""
    from cellblade.mpi import compiler

    checkout, package = tmp_path / "checkout", tmp_path / "package"
    (package / "include").mkdir(parents=True)
    (package / "include" / "mpi.h").write_text("")
    monkeypatch.setattr(compiler, "_LIBRARY_ROOTS", (checkout, package))
    assert compiler.library_root() == package
    (checkout / "include").mkdir(parents=True)
    (checkout / "include" / "mpi.h").write_text("")
    assert compiler.library_root() == checkout
    monkeypatch.setattr(compiler, "_LIBRARY_ROOTS", (tmp_path / "a", tmp_path / "b"))
    with pytest.raises(RuntimeError, match="the MPI C library is missing"):
        compiler.library_root()

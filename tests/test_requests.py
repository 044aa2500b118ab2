"""Typed requests from the CLI and the Python API to the core: the field an error is about,
names and defaults read from the core, the stub of the compiled module, no import cycles, and
the machine every result ran on."""

from __future__ import annotations

import ast
import inspect
import pkgutil
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import cellblade
from cellblade import _core

PACKAGE = Path(cellblade.__file__).parent


# ---- errors name the request field (Python) or the flag (CLI) --------------------------------


@pytest.mark.parametrize(
    "call, field, message",
    [
        (
            lambda: cellblade.run_stats("dmaget", spes=-1),
            "spes",
            "spes -1 is not allowed: 1 to 16 SPEs",
        ),
        (
            lambda: cellblade.run_stats("dmaget", size="16k"),
            "size",
            'size "16k" is not allowed: a whole number from 0 to 4294967295',
        ),
        (
            lambda: cellblade.run_stats("dmaget", iterations=10**12),
            "iterations",
            "iterations 1000000000000 is not allowed: 1 to 4294967295",
        ),
        (
            lambda: cellblade.run_stats(None),
            "function",
            "function null is not allowed: one of mkthread, mailbox, signal, dmaget, dmaput, "
            "dmalistget, dmalistput, fetchadd, fetchsub, fetchinc, fetchdec, fetchset",
        ),
        (
            lambda: cellblade.run_stats("dmaget", spes=20),
            "spes",
            "spes 20 is not allowed: 1 to 16 SPEs",
        ),
        (
            lambda: cellblade.coll_run("allreduce", root=-1),
            "root",
            "root -1 is not allowed: a rank, from 0 to the number of SPEs - 1",
        ),
        (
            lambda: cellblade.coll_run("allreduce", root=10**23),
            "root",
            "root 100000000000000000000000 is not allowed: a rank, from 0 to the number of SPEs - 1",
        ),
        (
            lambda: cellblade.coll_run("allreduce", sizes=[]),
            "sizes",
            "sizes [] is not allowed: at least one message size",
        ),
        (
            lambda: cellblade.coll_run("allreduce", spes=17),
            "spes",
            "spes 17 is not allowed: 1 to 16",
        ),
        (
            lambda: cellblade.coll_schedule("reduce.binomial", spes=4, root=4),
            "root",
            "root 4 is not allowed: 0 to 3",
        ),
        (
            lambda: cellblade.affinity_search("ring", default_samples=0),
            "default_samples",
            "default_samples 0 is not allowed: at least 1 draw of the default scheduler",
        ),
        (
            lambda: cellblade.affinity_run("ring", trials=0),
            "trials",
            "trials 0 is not allowed: 1 to 100",
        ),
        (
            lambda: cellblade.affinity_run("ring", seed=-1),
            "seed",
            "seed -1 is not allowed: a whole number from 0 to 18446744073709551615",
        ),
        (
            lambda: cellblade.affinity_run("ring", spes=12),
            "spes",
            "spes 12 is not allowed: 8 (one chip) or 16 (both chips)",
        ),
    ],
)
def test_api_errors_name_the_argument_the_value_and_the_range(call, field, message):
    with pytest.raises(cellblade.ConfigError) as caught:
        call()
    assert (caught.value.field, str(caught.value)) == (field, message)


def test_errors_about_no_field_have_field_none():
    with pytest.raises(cellblade.ConfigError) as caught:
        cellblade.run_stats("dmaget", spes=2, placement="ring", placement_file=__file__)
    assert caught.value.field is None
    assert str(caught.value) == "give a placement name or a placement file, not both"


def test_unknown_names_are_the_fields_errors():
    with pytest.raises(cellblade.ConfigError) as caught:
        cellblade.coll_run("scatter")
    assert (caught.value.field, str(caught.value)) == (
        "op",
        "op scatter is not allowed: one of barrier, broadcast, reduce, allreduce, allgather",
    )
    done = run_cli("coll", "allgather", "--algos", "spiral")  # the old spelling, named as typed
    assert done.stderr == (
        "cellblade: error: --algos allgather.spiral is not allowed: one of allgather.rdb, "
        "allgather.bruck, allgather.gather_bcast, allgather.hybrid_2_8, allgather.hybrid_3_4, "
        "allgather.hybrid_4_2\n"
    )


def test_unreadable_machine_and_placement_files_are_config_errors(tmp_path):
    with pytest.raises(cellblade.ConfigError) as caught:
        cellblade.run_stats("dmaget", machine="/nope.toml")
    assert caught.value.field == "machine"
    assert str(caught.value) == "machine /nope.toml cannot be read: No such file or directory"
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\x00\xff\xfe")
    with pytest.raises(cellblade.ConfigError) as caught:
        cellblade.calibrate(machine=binary)
    assert str(caught.value) == f"machine {binary} cannot be read: not UTF-8 text (byte 1)"
    with pytest.raises(cellblade.ConfigError) as caught:
        cellblade.run_stats("dmaget", spes=2, placement_file=binary)
    assert caught.value.field == "placement_file"


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ["stats", "-f", "dmaget", "-i", "1000000000000"],
            "-i 1000000000000 is not allowed: 1 to 4294967295",
        ),
        (
            ["stats", "-f", "dmaget", "-b", "4194304k"],
            "-b 4294967296 is not allowed: a whole number from 0 to 4294967295",
        ),
        (
            ["stats", "-f", "dmaget", "--seed", "-1"],
            "--seed -1 is not allowed: a whole number from 0 to 18446744073709551615",
        ),
        (
            ["stats", "-f", "dmaget", "-N", "2", "-l", "0", "-f", "dmalistget"],
            "-l 0 is not allowed: 1 to 2048 list elements",
        ),
        (
            ["coll", "reduce", "--root", "99999999999999999999999"],
            "--root 99999999999999999999999 is not allowed: a rank, from 0 to the number of SPEs - 1",
        ),
        (
            ["coll", "reduce", "--root", "8", "--algos", "binomial"],
            "--root 8 is not allowed: 0 to 7",
        ),
        (
            ["affinity", "run", "--pattern", "ring", "--trials", "1000000m"],
            "--trials 1000000000000 is not allowed: 1 to 100",
        ),
    ],
)
def test_cli_errors_name_the_flag(args, line):
    done = run_cli(*args)
    assert (done.returncode, done.stderr) == (2, f"cellblade: error: {line}\n")


def test_cellstats_names_the_flag_it_was_given():
    done = run_cli("stats", "-f", "dmaget", "-N", "1", "-s")
    assert done.stderr == (
        "cellblade: error: -N 1 is not allowed: at least 2 SPEs with "
        "spe_target (SPE 0 is the partner or target)\n"
    )


def test_cli_binary_files_are_one_line_errors(tmp_path):
    binary = tmp_path / "binary"
    binary.write_bytes(b"\x80\x81")
    done = run_cli("stats", "-f", "dmaget", "--machine", str(binary))
    assert (done.returncode, done.stderr) == (
        2,
        f"cellblade: error: --machine {binary} cannot be read: not UTF-8 text (byte 0)\n",
    )
    done = run_cli("affinity", "run", "--pattern", "ring", "--placement-file", str(binary))
    assert done.stderr == (
        f"cellblade: error: --placement-file {binary} cannot be read: not UTF-8 text (byte 0)\n"
    )


def test_placement_default_is_refused_without_offering_default():
    done = run_cli("stats", "-f", "dmaget", "-N", "2", "--placement", "default")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "cellblade: error: --placement default is not allowed: one of identity,"
    )
    assert "default," not in done.stderr.split("allowed", 1)[1]


# ---- names, defaults and limits come from the core --------------------------------------------


def test_defaults_are_the_cores():
    catalog = _core.catalog()
    assert cellblade.DEFAULT_ITERATIONS == catalog["stats"]["defaults"]["iterations"]
    assert cellblade.DEFAULT_COLL_SIZE == catalog["coll"]["default_size"]
    assert set(catalog["coll"]["ops"]) == {a["op"] for a in cellblade.coll_list()}
    # A run with everything left to the core uses the core's defaults.
    result = cellblade.run_stats("signal")
    assert (result["spes"], result["iterations"]) == (
        catalog["stats"]["defaults"]["spes"],
        catalog["stats"]["defaults"]["iterations"],
    )
    [row] = cellblade.coll_run("broadcast", spes=2, algorithms=["broadcast.cml"])
    assert row["size_bytes"] == catalog["coll"]["default_size"]


def test_cli_help_shows_the_cores_limits():
    done = run_cli("affinity", "run", "--help")
    trials = _core.catalog()["affinity"]
    assert f"1 to {trials['max_trials']} (default: {trials['default_trials']})" in " ".join(
        done.stdout.split()
    )


# ---- the stub and the package's imports -------------------------------------------------------


def _stub() -> ast.Module:
    return ast.parse((PACKAGE / "_core.pyi").read_text(encoding="utf-8"))


def test_the_stub_names_what_the_module_has():
    stub = _stub()
    declared = {
        node.name
        for node in stub.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
    }
    exported = {name for name in dir(_core) if not name.startswith("_")}
    assert declared == exported
    for node in stub.body:
        if isinstance(node, ast.ClassDef) and node.name in ("Spu", "Ppe", "ProgramBlade"):
            methods = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
            methods |= {item.target.id for item in node.body if isinstance(item, ast.AnnAssign)}
            public = {name for name in dir(getattr(_core, node.name)) if not name.startswith("_")}
            assert methods - {"__init__"} == public, node.name


def test_the_stub_takes_the_arguments_the_functions_take():
    for node in _stub().body:
        if isinstance(node, ast.FunctionDef):
            stub_args = [a.arg for a in node.args.args]
            optional = len(stub_args) - len(node.args.defaults)
            parameters = inspect.signature(getattr(_core, node.name)).parameters.values()
            # The names, in order, and which ones may be left out (the MPI calls' defaults are
            # values, the programs' None).
            assert [(p.name, p.default is not p.empty) for p in parameters] == [
                (arg, i >= optional) for i, arg in enumerate(stub_args)
            ], node.name


def _modules() -> set[str]:
    return {m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if m.name != "_core"} | {
        "__init__"
    }


def _imports(module: str) -> set[str]:
    """The package modules `module` imports, at the top or inside functions; importing a name
    of the package itself (``import cellblade``, ``from cellblade import run_stats``) imports
    ``__init__``."""
    modules = _modules() | {"_core"}
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "cellblade":
            found |= {a.name if a.name in modules else "__init__" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cellblade."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "cellblade":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
    return found & modules - {module}


def test_no_import_cycles_in_the_package():
    graph = {m: _imports(m) for m in _modules() if (PACKAGE / f"{m}.py").exists()}
    assert graph["coll"] >= {"schedule", "plots"}  # imports inside functions count
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for other in graph.get(module, ()):
            visit(other, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())


# ---- every result carries the machine it ran on ----------------------------------------------


def test_results_carry_their_resolved_machine():
    overrides = ["bif.data_gbps=20"]
    expected = cellblade.resolved_machine(overrides=overrides)
    assert "data_gbps = 20" in expected
    rows = cellblade.coll_run("barrier", spes=2, algorithms=["barrier.rdb"], overrides=overrides)
    assert isinstance(rows, list) and rows.machine_toml == expected
    stats = cellblade.run_stats("signal", overrides=overrides)
    assert stats["machine_toml"] == expected
    placements = cellblade.affinity_run("rd1", ["identity"], trials=1, overrides=overrides)
    assert placements.machine_toml == expected


# ---- the handles of Python programs check their integers --------------------------------------


def test_negative_or_huge_handle_arguments_are_config_errors_naming_the_argument():
    from cellblade.programs import Blade, ls_ea

    def program(spu):
        yield spu.mfc_get(-1, 0, 16, 0)

    with pytest.raises(cellblade.ConfigError) as caught:
        Blade().spe(0, program).run()
    assert (caught.value.field, str(caught.value)) == (
        "lsa",
        "lsa -1 is not allowed: a whole number from 0 to 4294967295",
    )
    with pytest.raises(cellblade.ConfigError, match=r"^spe -1 is not allowed: a whole number"):
        Blade().spe(-1, program)
    with pytest.raises(cellblade.ConfigError, match=r"^off 4294967296 is not allowed"):
        ls_ea(0, 2**32)

    def listing(spu):
        yield spu.mfc_getl(0, 0, [(16, 2**70)], 0)

    with pytest.raises(cellblade.ConfigError, match=r"^list eal 1180591620717411303424 is not"):
        Blade().spe(0, listing).run()
    with pytest.raises(TypeError, match="^spe: "):
        Blade().spe("zero", program)


@settings(max_examples=60, deadline=None)
@given(spes=st.one_of(st.integers(max_value=0), st.integers(min_value=17, max_value=2**80)))
def test_any_spe_count_out_of_range_is_refused_naming_spes(spes):
    with pytest.raises(cellblade.ConfigError) as caught:
        cellblade.coll_run("barrier", spes=spes)
    assert caught.value.field == "spes"
    assert str(caught.value) == f"spes {spes} is not allowed: 1 to 16"


def test_numpy_numbers_are_plain_numbers():
    np = pytest.importorskip("numpy")
    rows = cellblade.coll_run(
        "broadcast",
        spes=np.int64(2),
        sizes=np.array([16, 32]),
        algorithms=["broadcast.cml"],
        iterations=np.uint32(2),
    )
    assert [row["size_bytes"] for row in rows] == [16, 32]
    assert rows == cellblade.coll_run(
        "broadcast", spes=2, sizes=[16, 32], algorithms=["broadcast.cml"], iterations=2
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: cellblade.run_stats("dmaget", size=2**70),
            "size 1180591620717411303424 is not allowed: a whole number from 0 to 4294967295",
        ),
        (
            lambda: cellblade.run_stats("dmaget", seed=2**64),
            "seed 18446744073709551616 is not allowed: a whole number from 0 to 18446744073709551615",
        ),
        (
            lambda: cellblade.coll_run("broadcast", sizes=[16, 2**70]),
            "sizes [16, 1180591620717411303424] is not allowed: a whole number from 0 to 4294967295",
        ),
        (
            lambda: cellblade.run_stats("dmaget", placement=object),
            "placement <class 'object'> is not allowed: a string",
        ),
    ],
)
def test_values_python_cannot_hand_over_are_refused_with_the_fields_range(call, message):
    with pytest.raises(cellblade.ConfigError) as caught:
        call()
    assert str(caught.value) == message

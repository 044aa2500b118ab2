"""`cellblade coll`: parsing and output against a fake core, then against the real core."""

import csv
import json

import pytest
from conftest import run_cli, usage_error

import cellblade
from cellblade import coll
from cellblade.cli import main

PNG = b"\x89PNG\r\n\x1a\n"
RESULT_KEYS = {"op", "algorithm", "spes", "size_bytes", "latency_ns", "verified"}


# ---- without the simulator -----------------------------------------------------------------


@pytest.mark.parametrize(
    "args, named",
    [
        (["allgather", "--spes", "0"], ["--spes", "'0'", "1 to 16"]),
        (["allgather", "--spes", "17"], ["--spes", "'17'", "1 to 16"]),
        (["allgather", "--sizes", "32:16"], ["--sizes", "'32:16'", "0 < A <= B"]),
        (["allgather", "--sizes", "1.5k"], ["--sizes", "'1.5k'", "k=1024"]),
        (["allgather", "--algos", ","], ["--algos", "NAME,NAME"]),
        (["barrier", "--sizes", "16"], ["unrecognized", "--sizes"]),
        (["broadcast", "--reduce-op", "max"], ["unrecognized", "--reduce-op"]),
        (["reduce", "--dtype", "int8"], ["--dtype", "'int8'", "float64"]),
        (["reduce", "--root", "-1"], ["--root", "'-1'"]),
        (["show"], ["NAME"]),
        (["nosuch"], ["'nosuch'", "allreduce", "draw"]),
    ],
)
def test_bad_coll_flags_exit_2_naming_the_flag(args, named):
    message = usage_error("coll", *args)
    for word in named:
        assert word in message


@pytest.mark.parametrize(
    "text, sizes",
    [
        ("16:32k", [16 << k for k in range(12)]),
        ("64:256", [64, 128, 256]),
        ("48:200", [48, 96, 192]),
        ("1k", [1024]),
        ("64,1k,16", [64, 1024, 16]),
    ],
)
def test_sizes_are_a_doubling_range_or_a_list(text, sizes):
    assert coll.parse_sizes(text) == sizes


SCHEDULE = {
    "algorithm": "allgather.rdb",
    "op": "allgather",
    "spes": 2,
    "root": 0,
    "size": 16,
    "buffer": 32,
    "ordered": True,
    "placement": [0, 8],
    "rounds": [
        [
            {
                "dst": 0,
                "src": 1,
                "bytes": 16,
                "src_offset": 16,
                "dst_offset": 16,
                "action": "copy",
                "via": "ls",
            },
            {
                "dst": 1,
                "src": 0,
                "bytes": 16,
                "src_offset": 0,
                "dst_offset": 0,
                "action": "copy",
                "via": "ls",
            },
        ]
    ],
    "text": "schedule allgather.rdb op=allgather p=2 root=0 size=16 buffer=32\nround 0\n"
    "  0 <- 1 copy 16 @16 -> @16\n  1 <- 0 copy 16 @0 -> @0\n",
}


FAKE_ORDER = ("ota", "wrong", "two_to_all")  # the fake's i for a name; others: 0


@pytest.fixture
def fake_coll(monkeypatch):
    """Replaces the core's collective calls; returns the requests they received (the CLI sends
    one per algorithm and size, from several threads: compare them sorted). The fake run gives
    algorithm "op.NAME" at size s the latency s + i ns, i the place of NAME in FAKE_ORDER, and
    marks "op.wrong" unverified."""
    requests = []

    def record(request, machine):
        choice = {key: value for key, value in machine.items() if key != "set"}
        requests.append({**request, "machine": choice, "set": machine["set"]})

    def coll_run(request, machine=None):
        record(request, machine)
        names = request["algorithms"]
        if names == "all":
            names = [f"{request['op']}.a", f"{request['op']}.b"]
        rows = [
            {
                "op": request["op"],
                "algorithm": name,
                "spes": request["spes"],
                "size_bytes": size,
                "latency_ns": size
                + (FAKE_ORDER.index(coll.short(name)) if coll.short(name) in FAKE_ORDER else 0),
                "verified": not name.endswith("wrong"),
            }
            for name in names
            for size in request.get("sizes", [0])
        ]
        return {"result": rows, "machine_toml": 'name = "fake"\n'}

    def coll_schedule(request, machine=None):
        record(request, machine)
        return {"result": SCHEDULE, "machine_toml": None}

    for name, function in [
        ("coll_run", coll_run),
        ("coll_schedule", coll_schedule),
        ("resolved_machine", lambda request: 'name = "fake"\n'),
    ]:
        monkeypatch.setattr(cellblade._core, name, function, raising=False)
    return requests


def test_flags_become_the_core_request(fake_coll, tmp_path, capsys):
    argv = [
        "coll",
        "allreduce",
        "--spes",
        "16",
        "--sizes",
        "16:64",
        "--algos",
        "rdb,allreduce.rs_ag",
        "--placement",
        "evenodd",
        "--root",
        "3",
        "--dtype",
        "float64",
        "--reduce-op",
        "max",
        "--iterations",
        "5",
        "--set",
        "a.b=1",
        "--out",
        str(tmp_path),
        "--json",
    ]
    assert main(argv) == 0
    common = {
        "op": "allreduce",
        "spes": 16,
        "root": 3,
        "placement": "evenodd",
        "dtype": "float64",
        "reduce_op": "max",
        "iterations": 5,
        "machine": {"preset": "qs20"},
        "set": ["a.b=1"],
    }
    key = lambda request: json.dumps(request, sort_keys=True)  # noqa: E731
    assert sorted(fake_coll, key=key) == sorted(
        [
            dict(common, algorithms=[name], sizes=[size])
            for name in ("allreduce.rdb", "allreduce.rs_ag")
            for size in (16, 32, 64)
        ],
        key=key,
    )
    results = json.loads(capsys.readouterr().out)
    assert [(r["algorithm"], r["size_bytes"]) for r in results][:2] == [
        ("allreduce.rdb", 16),
        ("allreduce.rdb", 32),
    ]


def test_barrier_sends_no_sizes_and_placement_ids_are_a_list(fake_coll, tmp_path):
    argv = ["coll", "barrier", "-n", "4", "--placement", "0,8,1,9", "--out", str(tmp_path)]
    assert main([*argv, "--json"]) == 0
    barriers = [a["name"] for a in cellblade.coll_list() if a["op"] == "barrier"]
    assert sorted(r["algorithms"][0] for r in fake_coll) == sorted(barriers)
    for request in fake_coll:
        assert "sizes" not in request and request["placement"] == [0, 8, 1, 9]


def test_table_marks_the_best_and_the_wrong_and_files_are_written(fake_coll, tmp_path, capsys):
    argv = [
        "coll",
        "broadcast",
        "--sizes",
        "16,32",
        "--algos",
        "ota,wrong,two_to_all",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "broadcast, 8 SPEs, int32, root 0, rank i on SPE i: latency (ns) of the slowest rank"
    )
    assert lines[1].split() == ["size", "ota", "wrong", "two_to_all"]
    assert lines[2].split() == ["16", "B", "16.0*", "17.0!", "18.0"]
    assert lines[3].split() == ["32", "B", "32.0*", "33.0!", "34.0"]
    with (tmp_path / "coll-broadcast-8.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 6 and set(rows[0]) == RESULT_KEYS | {"error"}
    document = json.loads((tmp_path / "coll-broadcast-8.json").read_text())
    assert document["parameters"]["sizes"] == [16, 32] and len(document["results"]) == 6
    assert (tmp_path / "coll-broadcast-8.png").read_bytes()[:8] == PNG
    assert (tmp_path / "machine.toml").read_text() == 'name = "fake"\n'


def test_large_latencies_are_written_in_us_across_the_table():
    results = [
        {"algorithm": "allgather.rdb", "size_bytes": size, "latency_ns": ns, "verified": True}
        for size, ns in [(16, 900.0), (32768, 25_000.0)]
    ]
    unit, header, rows = coll.table(results)
    assert (unit, header) == ("us", ("size", "rdb"))
    assert rows == [("16 B", "0.90*"), ("32 KiB", "25.00*")]


def test_show_prints_the_text_and_the_bif_crossings(fake_coll, capsys):
    argv = ["coll", "show", "allgather.rdb", "-n", "2", "--size", "16", "--placement", "0,8"]
    assert main(argv) == 0
    assert fake_coll[0] | {"machine": None, "set": None} == {
        "algorithm": "allgather.rdb",
        "spes": 2,
        "size": 16,
        "root": 0,
        "placement": [0, 8],
        "machine": None,
        "set": None,
    }
    out = capsys.readouterr().out
    assert out == SCHEDULE["text"] + "placement 0,8: 2 of 2 transfers cross the BIF\n"


def test_draw_writes_a_png_at_the_default_path(fake_coll, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["coll", "draw", "allgather.rdb", "-n", "2"]) == 0
    path = tmp_path / "out" / "coll-draw-allgather.rdb-2.png"
    assert capsys.readouterr().out == "wrote out/coll-draw-allgather.rdb-2.png\n"
    assert path.read_bytes()[:8] == PNG


# ---- against the real core -----------------------------------------------------------------


def test_list_shows_the_registry():
    done = run_cli("coll", "list")
    assert done.returncode == 0, done.stderr
    assert "broadcast.binomial_opt" in done.stdout and "power of two" in done.stdout


def test_allgather_json_rows_are_verified(tmp_path):
    done = run_cli(
        "coll",
        "allgather",
        "--spes",
        "8",
        "--sizes",
        "64:256",
        "--algos",
        "allgather.rdb",
        "--json",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    rows = json.loads(done.stdout)
    assert [r["size_bytes"] for r in rows] == [64, 128, 256]
    for r in rows:
        assert set(r) == RESULT_KEYS
        assert r["algorithm"] == "allgather.rdb" and r["spes"] == 8
        assert r["verified"] and r["latency_ns"] > 0
    assert (tmp_path / "coll-allgather-8.png").read_bytes()[:8] == PNG


def test_barrier_table_stars_the_fastest(tmp_path):
    done = run_cli("coll", "barrier", "--spes", "8", "--iterations", "2", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split()[:3] == ["size", "rdb", "bruck"]
    cells = lines[2].split()[1:]
    barriers = [a for a in cellblade.coll_list() if a["op"] == "barrier"]
    assert "!" not in lines[2] and len(cells) == len(barriers) >= 8
    fastest = min(float(cell.rstrip("*")) for cell in cells)
    assert {float(cell[:-1]) for cell in cells if cell.endswith("*")} == {fastest}
    assert (tmp_path / "coll-barrier-8.png").read_bytes()[:8] == PNG


def test_show_prints_rounds_and_counts_bif_crossings():
    done = run_cli("coll", "show", "allgather.rdb", "-n", "16")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("schedule allgather.rdb") and "\nround 3\n" in done.stdout
    # Ranks 0-7 on chip 0 and 8-15 on chip 1: only the last round's 16 transfers cross.
    assert done.stdout.endswith(": 16 of 64 transfers cross the BIF\n")


def test_draw_writes_a_png(tmp_path):
    path = tmp_path / "rdb.png"
    done = run_cli(
        "coll", "draw", "allgather.rdb", "-n", "16", "--placement", "evenodd", "--out", str(path)
    )
    assert done.returncode == 0, done.stderr
    assert path.read_bytes()[:8] == PNG


@pytest.mark.parametrize(
    "args", [["allgather", "--algos", "nosuch"], ["show", "nosuch"], ["draw", "nosuch"]]
)
def test_unknown_algorithm_exits_2_naming_the_valid_ones(args):
    done = run_cli("coll", *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("cellblade: error: ") and "nosuch" in done.stderr
    # A run of one operation lists that operation's algorithms; a NAME may be any one.
    others = args[0] != "allgather"
    for name in ("allgather.rdb", "broadcast.binomial_opt", "barrier.bruck"):
        assert (name in done.stderr) == (others or name.startswith("allgather.")), name


def test_core_refuses_zero_spes():
    # A Python caller is told about the argument it gave, not a flag it did not type.
    with pytest.raises(cellblade.ConfigError, match="^spes 0 is not allowed: 1 to 16$") as caught:
        cellblade.coll_run("allgather", spes=0, sizes=[64])
    assert caught.value.field == "spes"

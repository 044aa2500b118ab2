"""The project's MPI C tests (libmpi/tests/*.c): built with `cellblade mpicc`, run with
`cellblade mpirun`, each printing "No Errors"; then the faults mpirun must report."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import run_cli

import cellblade

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
MPI_ERR_REQUEST = 7  # mpi.h: a fatal error's exit code is its error class


@pytest.mark.parametrize(
    "name, ranks",
    [
        ("sendrecv_basic", 2),
        ("sendrecv_basic", 5),
        ("truncate", 2),
        ("wtime_barrier", 3),
        ("wtime_spin", 2),
        ("collectives", 1),
        ("collectives", 4),
        ("collectives", 16),
        ("comm_types_ops", 1),
        ("comm_types_ops", 5),
        ("nonblocking_probe", 2),
        ("nonblocking_probe", 3),
        ("derived_reduce", 1),
        ("derived_reduce", 6),
        ("null_buffers", 1),
        ("null_buffers", 2),
        ("rooted_args", 1),
        ("rooted_args", 5),
        ("type_free_refs", 1),
        ("type_free_refs", 3),
        ("comm_free_refs", 1),
        ("comm_free_refs", 3),
        ("testall_progress", 2),
        ("testall_progress", 3),
        ("type_attr_errcodes", 1),
        ("type_attr_errcodes", 3),
        ("datatypes_mpi2", 1),
        ("datatypes_mpi2", 4),
        ("fortran_types", 1),
        ("fortran_types", 3),
        ("grequest", 1),
        ("grequest", 3),
    ],
)
def test_program_passes(build, name, ranks):
    done = run_cli("mpirun", "-n", str(ranks), build(name))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "No Errors\n"
    assert done.stderr == ""


def test_a_wait_on_a_generalized_request_nobody_completed_is_an_error_not_a_hang(build):
    done = run_cli("mpirun", "-n", "1", build("grequest"), "never")
    assert done.returncode == MPI_ERR_REQUEST, done.stderr
    assert (
        "cellblade mpi: rank 0: MPI_Wait: MPI_ERR_REQUEST: generalized request 1 is not complete, "
        "and nothing can complete it while the rank waits (one thread per rank): call "
        "MPI_Grequest_complete first (MPI_ERRORS_ARE_FATAL)\n" in done.stderr
    ), done.stderr


def test_ls_mode_and_qs22_pass(build):
    done = run_cli(
        "mpirun", "-n", "4", "--mode", "ls", "--preset", "qs22", build("sendrecv_basic"), "8000"
    )
    assert (done.returncode, done.stdout) == (0, "No Errors\n"), done.stderr


def test_ls_mode_refuses_what_the_local_store_cannot_hold(build):
    """Through MPI_Send's error handler (MPI_ERRORS_ARE_FATAL: MPI_Abort with the class)."""
    done = run_cli("mpirun", "-n", "2", "--mode", "ls", build("sendrecv_basic"))
    assert done.returncode == 21, done.stderr
    assert (
        "MPI_Send: MPI_ERR_NO_MEM: a 320000-byte message does not fit the rank's message buffers "
        "on the simulated blade (its main-memory heap, or its local store in ls mode): they hold "
        "at most 224768 bytes (MPI_ERRORS_ARE_FATAL)"
    ) in done.stderr, done.stderr


def test_same_program_same_output(build, tmp_path):
    """Simulated time only: the timing program prints the same bytes on every run."""
    src = tmp_path / "times.c"
    src.write_text(
        '#include <stdio.h>\n#include "mpi.h"\n'
        "int main(int c, char **v) { int r; char b[4096]; MPI_Init(&c, &v); MPI_Comm_rank(MPI_COMM_WORLD, &r);\n"
        "double t = MPI_Wtime(); for (int i = 0; i < 20; i++) { if (r == 0) { MPI_Send(b, 4096, MPI_CHAR, 1, 0, MPI_COMM_WORLD);\n"
        "MPI_Recv(b, 4096, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } else { MPI_Recv(b, 4096, MPI_CHAR, 0, 0, MPI_COMM_WORLD,\n"
        "MPI_STATUS_IGNORE); MPI_Send(b, 4096, MPI_CHAR, 0, 0, MPI_COMM_WORLD); } }\n"
        'if (r == 0) printf("%.9f\\n", MPI_Wtime() - t); MPI_Finalize(); return 0; }\n'
    )
    exe = tmp_path / "times"
    assert run_cli("mpicc", str(src), "-o", str(exe)).returncode == 0
    first = run_cli("mpirun", "-n", "2", str(exe))
    second = run_cli("mpirun", "-n", "2", str(exe))
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert 1e-6 < float(first.stdout) < 1e-3


def test_deadlock_names_every_pending_call(build):
    done = run_cli("mpirun", "-n", "2", build("fault_deadlock"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert re.fullmatch(
        r"cellblade: error: deadlock at [0-9.]+ ns: rank 0 waits in MPI_Send to 1, tag 5 on MPI_COMM_WORLD; "
        r"rank 1 waits in MPI_Send to 0, tag 5 on MPI_COMM_WORLD\n",
        done.stderr,
    ), done.stderr


def test_the_c_library_and_the_core_agree_on_wire_codes():
    """libmpi/src/channel.h's enum lists wire.rs's request codes in their order."""
    root = Path(__file__).parent.parent
    rust = (root / "crates/cellblade/src/mpi/wire.rs").read_text()
    core = {k: int(v) for k, v in re.findall(r"pub const (OP_\w+): u32 = (\d+);", rust)}
    header = (root / "libmpi/src/channel.h").read_text()
    body = re.search(r"enum \{(.*?)\};", header, re.S).group(1)
    c, next_code = {}, 0
    for item in (x.strip() for x in body.split(",")):
        name, _, value = (p.strip() for p in item.partition("="))
        next_code = int(value) if value else next_code
        c[name] = next_code
        next_code += 1
    assert c == core
    assert (c["OP_SSEND"], c["OP_ISSEND"]) == (18, 19)


BUFFERED = ("--set", "mpi.buffered_bytes=80")


def test_ssend_is_synchronous_in_buffered_mode(build):
    """MPI_Ssend and MPI_Issend wait for the matching receive even where MPI_Send of the
    same 16 bytes is buffered (issue 15; libmpi/tests/ssend_buffered.c times both)."""
    done = run_cli("mpirun", "-n", "3", *BUFFERED, build("ssend_buffered"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_ssend_exchange_deadlocks_in_buffered_mode(build):
    """Buffering lets the MPI_Send exchange through; the MPI_Ssend one still deadlocks."""
    sent = run_cli("mpirun", "-n", "2", *BUFFERED, build("fault_deadlock"))
    assert (sent.returncode, sent.stderr) == (0, "")
    done = run_cli("mpirun", "-n", "2", *BUFFERED, build("fault_deadlock"), "ssend")
    assert done.returncode == 1
    assert re.fullmatch(
        r"cellblade: error: deadlock at [0-9.]+ ns: rank 0 waits in MPI_Ssend to 1, tag 5 on MPI_COMM_WORLD; "
        r"rank 1 waits in MPI_Ssend to 0, tag 5 on MPI_COMM_WORLD\n",
        done.stderr,
    ), done.stderr


def test_crash_names_rank_and_signal(build):
    done = run_cli("mpirun", "-n", "3", build("fault_crash"))
    assert done.returncode == 128 + 11
    assert done.stderr == (
        "cellblade mpirun: rank 1 was killed by SIGSEGV without calling MPI_Finalize "
        "(its last call: MPI_Comm_rank on MPI_COMM_WORLD): the other ranks were ended\n"
    )


def test_exit_without_finalize(build):
    done = run_cli("mpirun", "-n", "3", build("fault_exit"))
    assert done.returncode == 1
    assert done.stderr == (
        "cellblade mpirun: rank 1 exited with code 0 without calling MPI_Finalize "
        "(its last call: MPI_Comm_rank on MPI_COMM_WORLD): the other ranks were ended\n"
    )


def test_abort_ends_the_job_with_its_code(build):
    done = run_cli("mpirun", "-n", "2", build("fault_abort"))
    assert done.returncode == 7
    assert (
        done.stderr
        == "cellblade mpirun: rank 1 called MPI_Abort with error code 7: the other ranks were ended\n"
    )


def test_errors_are_fatal_by_default(build):
    done = run_cli("mpirun", "-n", "2", build("fault_fatal"))
    assert done.returncode == 6
    assert (
        "cellblade mpi: rank 0: MPI_Send: MPI_ERR_RANK: destination rank 9 is invalid: allowed 0 to 1 or MPI_PROC_NULL (MPI_ERRORS_ARE_FATAL)\n"
        in done.stderr
    )
    assert (
        "cellblade mpirun: rank " in done.stderr
        and "called MPI_Abort with error code 6" in done.stderr
    )


def test_call_before_init(build):
    done = run_cli("mpirun", "-n", "1", build("fault_noinit"))
    assert done.returncode == 1
    assert done.stderr.startswith("cellblade mpi: MPI_Send: called before MPI_Init\n"), done.stderr
    assert (
        "rank 0 exited with code 1 without calling MPI_Finalize (its last call: none, before MPI_Init)"
        in done.stderr
    )


@pytest.mark.parametrize(
    "args, named",
    [
        (["-n", "0", "prog"], ["'0'", "1 to 16"]),
        (["-n", "17", "prog"], ["'17'", "1 to 16"]),
        (["-n", "2", "--mode", "cache", "prog"], ["--mode", "'cache'"]),
    ],
)
def test_bad_flags_exit_2(args, named):
    done = run_cli("mpirun", *args)
    assert done.returncode == 2
    for word in named:
        assert word in done.stderr


def test_missing_or_non_executable_program(tmp_path):
    """Bad usage as a missing --machine file is: exit 2, PROGRAM named, before any rank starts."""
    done = run_cli("mpirun", "-n", "2", str(tmp_path / "nosuch"))
    assert (done.returncode, done.stderr) == (
        2,
        f"cellblade: error: PROGRAM {tmp_path / 'nosuch'} does not exist: "
        "build one with `cellblade mpicc prog.c -o prog`\n",
    )
    text = tmp_path / "notes.txt"
    text.write_text("hi")
    done = run_cli("mpirun", "-n", "2", str(text))
    assert done.returncode == 2
    assert done.stderr.startswith(f"cellblade: error: PROGRAM {text} is not executable"), (
        done.stderr
    )


def test_outside_mpirun_the_library_says_so(build):
    import subprocess

    done = subprocess.run([build("truncate")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert (
        done.stderr
        == "cellblade mpi: MPI_Init: this program is not running under `cellblade mpirun` (CELLBLADE_MPI_FD is not set)\n"
    )


def test_mpicc_show_adds_header_and_library():
    done = run_cli("mpicc", "--show", "x.c", "-o", "x")
    assert done.returncode == 0
    words = done.stdout.split()
    assert words[1:3] == ["-I", words[2]] and Path(words[2], "mpi.h").exists()
    assert words[-1] == "-lcellblade_mpi" and Path(words[2], "libcellblade_mpi.a").exists()
    compile_only = run_cli("mpicc", "--show", "-c", "x.c").stdout.split()
    assert "-lcellblade_mpi" not in compile_only


def test_placement_puts_ranks_on_the_named_spes(build):
    done = run_cli("mpirun", "-n", "2", "--placement", "0,8", build("sendrecv_basic"), "64")
    assert (done.returncode, done.stdout) == (0, "No Errors\n"), done.stderr
    done = run_cli("mpirun", "-n", "8", "--placement", "evenodd", build("sendrecv_basic"), "64")
    assert (done.returncode, done.stdout) == (0, "No Errors\n"), done.stderr
    done = run_cli("mpirun", "-n", "2", "--placement", "3,3", build("sendrecv_basic"))
    assert (done.returncode, done.stderr) == (
        2,
        "cellblade: error: --placement repeats SPE 3 (ranks 0 and 1): it must be a permutation\n",
    )
    done = run_cli("mpirun", "-n", "3", "--placement", "0,1", build("sendrecv_basic"))
    assert (done.returncode, done.stderr) == (
        2,
        "cellblade: error: --placement 0,1 is not allowed: one SPE per rank: it names 2, the run has 3\n",
    )


def test_cross_chip_messages_take_longer(tmp_path):
    """The same ping-pong, partner on the other chip: slower (BIF crossing)."""
    src = tmp_path / "pp.c"
    src.write_text(
        '#include <stdio.h>\n#include "mpi.h"\n'
        "int main(int c, char **v) { int r; char b[8]; MPI_Init(&c, &v); MPI_Comm_rank(MPI_COMM_WORLD, &r);\n"
        "double t = MPI_Wtime(); for (int i = 0; i < 50; i++) { if (r == 0) { MPI_Send(b, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);\n"
        "MPI_Recv(b, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } else { MPI_Recv(b, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD,\n"
        "MPI_STATUS_IGNORE); MPI_Send(b, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD); } }\n"
        'if (r == 0) printf("%.9f\\n", MPI_Wtime() - t); MPI_Finalize(); return 0; }\n'
    )
    exe = tmp_path / "pp"
    assert run_cli("mpicc", str(src), "-o", str(exe)).returncode == 0
    near = float(run_cli("mpirun", "-n", "2", str(exe)).stdout)
    far = float(run_cli("mpirun", "-n", "2", "--placement", "0,8", str(exe)).stdout)
    # Each of the 2 x 50 messages puts its meta-data entry into the other chip's local store,
    # a cache-inhibited access that pays the non-cacheable BIF crossing at least once.
    import tomllib

    crossing_s = tomllib.loads(cellblade.preset("qs20"))["bif"]["noncacheable_crossing_ns"] * 1e-9
    assert far - near >= 100 * crossing_s, (near, far)


def test_pingpong_plot_draws_the_three_curves_of_figure_5(tmp_path, monkeypatch):
    from cellblade import plots

    drawn = {}

    def capture(curves, path, *, title):
        drawn.update(curves=curves, title=title)
        real(curves, path, title=title)

    real = plots.pingpong_figure
    monkeypatch.setattr(plots, "pingpong_figure", capture)
    from cellblade import cli

    png = tmp_path / "fig5.png"
    assert (
        cli.main(["pingpong", "--sizes", "1k,64k,1m", "--iterations", "2", "--plot", str(png)]) == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    curves = dict(drawn["curves"])
    assert [r["bytes"] for r in curves["memory (seed default)"]] == [1024, 65536, 1048576]
    assert [r["bytes"] for r in curves["memory, congested"]] == [1024, 65536, 1048576]
    # 1 MB buffers do not fit a local store: that curve stops before it.
    assert [r["bytes"] for r in curves["local store"]] == [1024, 65536]
    assert curves["local store"][1]["latency_us"] < curves["memory (seed default)"][1]["latency_us"]


def test_pingpong_command_prints_the_seed_rows():
    done = run_cli("pingpong", "--sizes", "0,64k", "--json")
    assert done.returncode == 0, done.stderr
    import json

    rows = json.loads(done.stdout)
    assert [r["bytes"] for r in rows] == [0, 65536]
    assert rows[0]["reps"] == 1000 and rows[0]["throughput_gbps"] == 0
    assert 5.0 < rows[1]["throughput_gbps"] < 6.5
    ls = json.loads(run_cli("pingpong", "--mode", "ls", "--sizes", "64k", "--json").stdout)
    assert ls[0]["throughput_gbps"] > 3 * rows[1]["throughput_gbps"]
    for flag in ("--iterations", "--reps"):  # --reps: the earlier spelling, hidden
        bad = run_cli("pingpong", flag, "0")
        assert (bad.returncode, bad.stderr) == (
            2,
            f"cellblade: error: argument {flag}: invalid value '0': allowed 1 or more\n",
        )


def test_ctrl_c_ends_every_rank(tmp_path):
    """SIGINT to mpirun alone, while the simulator waits for ranks that compute forever."""
    import os
    import signal
    import subprocess
    import sys
    import time

    src = tmp_path / "spin.c"
    src.write_text(
        '#include <unistd.h>\n#include "mpi.h"\nint main(int c, char **v) { MPI_Init(&c, &v); for (;;) pause(); }\n'
    )
    exe = tmp_path / "spin"
    assert run_cli("mpicc", str(src), "-o", str(exe)).returncode == 0
    job = subprocess.Popen(
        [sys.executable, "-m", "cellblade.cli", "mpirun", "-n", "3", str(exe)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )

    def ranks() -> list[int]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.readlink(f"/proc/{pid}/exe") == str(exe):
                    found.append(int(pid))
            except OSError:
                pass
        return found

    deadline = time.time() + 60
    while len(ranks()) < 3 and time.time() < deadline:
        time.sleep(0.05)
    assert len(ranks()) == 3
    time.sleep(0.3)
    job.send_signal(signal.SIGINT)
    try:
        out, err = job.communicate(timeout=60)
    finally:
        if job.poll() is None:  # the signal did not end it: nothing is left behind
            os.killpg(job.pid, signal.SIGKILL)
            for rank in ranks():
                os.kill(rank, signal.SIGKILL)
    assert job.returncode == 130, err
    assert ranks() == [], "no rank is left behind"


def test_matmul_example_reproduces_seed_5_2(tmp_path):
    """examples/mpi/matmul.c: verified product; at n = 512 on 8 SPEs within 10% of the seed's
    5.85 Gflop/s (seed 004 §5.2; nothing fitted: the DP issue interval comes from seed 002)."""
    exe = tmp_path / "matmul"
    example = Path(__file__).parent.parent / "examples" / "mpi" / "matmul.c"
    assert run_cli("mpicc", "-O2", str(example), "-o", str(exe), "-lm").returncode == 0
    small = run_cli("mpirun", "-n", "3", str(exe), "48")
    assert small.returncode == 0 and small.stdout.endswith(", verified\n"), small
    done = run_cli("mpirun", "-n", "8", str(exe), "512")
    assert done.returncode == 0, done.stderr
    gflops = float(re.search(r"([0-9.]+) Gflop/s, verified", done.stdout).group(1))
    assert abs(gflops / 5.85 - 1) < 0.10, done.stdout


def test_matmul_example_and_the_cores_twin_are_one_algorithm(tmp_path):
    """`cellblade reproduce` states seed 004 §5.2's rates with mpi/matmul.rs, the Rust twin of
    examples/mpi/matmul.c: both give the same simulated time to the printed digit."""
    exe = tmp_path / "matmul"
    example = Path(__file__).parent.parent / "examples" / "mpi" / "matmul.c"
    assert run_cli("mpicc", "-O2", str(example), "-o", str(exe), "-lm").returncode == 0
    for n, ranks in [(256, 8), (40, 3)]:
        done = run_cli("mpirun", "-n", str(ranks), str(exe), str(n))
        assert done.returncode == 0, done.stderr
        twin = cellblade._core.mpi_matmul({"n": n, "ranks": ranks}, None)["result"]
        assert twin["verified"] and twin["workers"] == ranks - 1
        assert done.stdout == (
            f"n {n}, {ranks - 1} workers: {twin['seconds'] * 1e3:.3f} ms, "
            f"{twin['gflops']:.2f} Gflop/s, verified\n"
        )


def test_matmul_twin_names_bad_fields():
    with pytest.raises(cellblade.ConfigError, match="ranks") as bad:
        cellblade._core.mpi_matmul({"n": 16, "ranks": 1}, None)
    assert bad.value.field == "ranks"
    with pytest.raises(cellblade.ConfigError) as bad:
        cellblade._core.mpi_matmul({"n": 0}, None)
    assert bad.value.field == "n"


def test_compute_extension_charges_simulated_time(tmp_path):
    src = tmp_path / "cmp.c"
    src.write_text(
        '#include <stdio.h>\n#include "mpi.h"\n'
        "int main(int c, char **v) { MPI_Init(&c, &v); double t0 = MPI_Wtime(); MPIX_Compute_cycles(3.2e6);\n"
        "double t1 = MPI_Wtime(); MPIX_Compute_dp_fma(1e5); double t2 = MPI_Wtime();\n"
        'printf("%.6f %.6f\\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3); MPI_Finalize(); return 0; }\n'
    )
    exe = tmp_path / "cmp"
    assert run_cli("mpicc", str(src), "-o", str(exe)).returncode == 0
    done = run_cli("mpirun", "-n", "1", str(exe))
    ms_cycles, ms_fma = map(float, done.stdout.split())
    assert abs(ms_cycles - 1.0) < 1e-3, "3.2 million cycles at 3.2 GHz: 1 ms"
    assert abs(ms_fma - 7e5 / 3.2e6) < 1e-3, "1e5 scalar DP FMAs at one per 7 cycles"


def test_matvec_example_scales_with_ranks(tmp_path):
    exe = tmp_path / "matvec"
    example = Path(__file__).parent.parent / "examples" / "mpi" / "matvec.c"
    assert run_cli("mpicc", "-O2", str(example), "-o", str(exe), "-lm").returncode == 0
    rates = {}
    for n in (1, 4):
        done = run_cli("mpirun", "-n", str(n), str(exe), "256", "4")
        assert done.returncode == 0 and done.stdout.endswith(", verified\n"), done
        rates[n] = float(re.search(r"([0-9.]+) Gflop/s", done.stdout).group(1))
    assert rates[4] > 2.5 * rates[1], rates
    bad = run_cli("mpirun", "-n", "3", str(exe), "256", "1")
    assert bad.returncode == 2 and "must be a multiple of the rank count (3)" in bad.stderr


def test_trace_and_out(build, tmp_path):
    import json

    trace, out = tmp_path / "t.json", tmp_path / "run"
    done = run_cli(
        "mpirun", "-n", "2", "--trace", str(trace), "--out", str(out), build("sendrecv_basic"), "16"
    )
    assert done.returncode == 0, done.stderr
    events = json.loads(trace.read_text())
    assert events, "a non-empty Chrome trace"
    result = json.loads((out / "result.json").read_text())
    assert result["outcome"] == "finished" and result["ranks"] == 2 and result["simulated_ns"] > 0
    assert "[eib]" in (out / "machine.toml").read_text()


def test_depth_flag(build):
    import json

    rows = {
        d: json.loads(run_cli("pingpong", "--sizes", "256k", "--depth", str(d), "--json").stdout)[0]
        for d in (2, 4)
    }
    assert rows[4]["throughput_gbps"] >= 0.99 * rows[2]["throughput_gbps"]
    bad = run_cli("pingpong", "--depth", "9")
    assert (bad.returncode, bad.stderr) == (
        2,
        "cellblade: error: --depth 9 is not allowed: 2 to 8 chunks in flight\n",
    )
    done = run_cli("mpirun", "-n", "3", "--depth", "8", build("sendrecv_basic"))
    assert (done.returncode, done.stdout) == (0, "No Errors\n"), done.stderr


def test_the_job_and_pingpong_requests_name_their_fields():
    import cellblade
    from cellblade import _core
    from cellblade.mpi import launcher

    limit = cellblade.catalog()["mpi"]["max_ranks"]
    assert limit == 16
    with pytest.raises(cellblade.ConfigError) as refused:
        launcher.mpirun("/bin/true", n=limit + 1)  # refused before any process starts
    assert (refused.value.field, str(refused.value)) == (
        "ranks",
        "ranks 17 is not allowed: 1 to 16 (one rank per SPE, 8 SPEs per chip, 2 chips; seed 004 §3.2)",
    )
    with pytest.raises(cellblade.ConfigError) as refused:
        _core.mpi_pingpong({"sizes": [0], "np": 2})
    assert refused.value.field == "np"
    with pytest.raises(cellblade.ConfigError) as refused:
        _core.mpi_pingpong({"sizes": [0], "mode": "shm"})
    assert (refused.value.field, str(refused.value)) == (
        "mode",
        "mode shm is not allowed: one of memory, ls",
    )
    answer = _core.mpi_pingpong({"sizes": [0]}, {"preset": "qs22"})
    assert answer["result"][0]["bytes"] == 0 and "qs22" in answer["machine_toml"].lower()
    bad = run_cli("mpirun", "-n", "2", "--mode", "ls", "--depth", "1", "/bin/true")
    assert (bad.returncode, bad.stderr) == (
        2,
        "cellblade: error: --depth 1 is not allowed: 2 to 8 chunks in flight\n",
    )


def test_bench_mpi_workload_matches_the_in_simulator_pingpong():
    """`cellblade bench`'s MPI workload (examples/mpi/latency.c through the launcher): its
    simulated latencies are the core's ping-pong's, and it reports its wall-time figures."""
    from cellblade import _core
    from cellblade.mpi import bench

    r = bench.run(quick=True)
    sizes = [s["bytes"] for s in r["sizes"]]
    assert sizes == [0] + [1 << k for k in range(17)]
    core = {
        row["bytes"]: row["latency_us"]
        for row in _core.mpi_pingpong({"sizes": [0, 1, 1024, 65536]})["result"]
    }
    for s in r["sizes"]:
        if s["bytes"] in core:
            assert s["latency_us"] == pytest.approx(core[s["bytes"]], rel=0.01, abs=0.002), s
    assert len(r["roundtrip_runs_us"]) == len(r["socket_runs_us"]) == 3 and r["packets"] > 0
    assert r["roundtrip_us"] == sorted(r["roundtrip_runs_us"])[1]
    assert 0 < r["simulator_us_per_call"] < r["roundtrip_us"]
    assert r["socket_over_shared"] == pytest.approx(r["socket_roundtrip_us"] / r["roundtrip_us"])
    assert r["packets_per_second"] == pytest.approx(r["packets"] / r["simulator_wall_s"])
    assert "round trip, rank process to simulator" in bench.describe(r)


# --coll (crates/cellblade/src/mpi/collective.rs): the collective library under MPI.


@pytest.mark.parametrize(
    "name, ranks",
    [
        ("collectives", 1),
        ("collectives", 6),
        ("collectives", 16),
        ("comm_types_ops", 5),
        ("reduce_derived", 1),
        ("reduce_derived", 3),
        ("reduce_derived", 8),
        ("wtime_barrier", 3),
    ],
)
@pytest.mark.parametrize(
    "coll", ["seed", "library", "auto", "bcast=cml,allreduce=rs_ag,barrier=bruck"]
)
def test_programs_pass_on_every_collective_path(build, model_params, name, ranks, coll):
    """The same checks pass, so the same results, on the seed's and on the library's
    collectives (allreduce.rs_ag takes powers of two only: other counts are refused up front)."""
    if coll.endswith("bruck") and ranks & (ranks - 1):
        return
    done = run_cli("mpirun", "-n", str(ranks), "--coll", coll, build(name))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def _bench(tmp_path, ranks: int, coll: str, largest: int) -> dict[int, tuple[float, float]]:
    exe = tmp_path / "coll_bench"
    if not exe.exists():
        example = Path(__file__).parent.parent / "examples" / "mpi" / "coll_bench.c"
        assert run_cli("mpicc", "-O2", str(example), "-o", str(exe)).returncode == 0
    done = run_cli("mpirun", "-n", str(ranks), "--coll", coll, str(exe), str(largest))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if not line.startswith("#")]
    return {int(s): (float(b), float(a)) for s, b, a in rows}


def test_library_collectives_beat_the_seeds_on_16_ranks(tmp_path):
    """The seed's root sends N-1 synchronous messages (seed 004 §3.4); the library's trees and
    recursive doubling take log2(N) steps, so on 16 ranks they are faster at every size."""
    seed = _bench(tmp_path, 16, "seed", 1024)
    library = _bench(tmp_path, 16, "library", 1024)
    assert sorted(seed) == sorted(library) == [8, 16, 32, 64, 128, 256, 512, 1024]
    for size in seed:
        assert library[size][0] < seed[size][0] / 2, (size, seed[size], library[size])
        assert library[size][1] < seed[size][1] / 2, (size, seed[size], library[size])


@pytest.mark.parametrize(
    "coll, named",
    [
        ("fast", ["--coll 'fast' is not allowed: one of seed, library, auto, or OP=ALGO"]),
        ("scan=rdb", ["operation 'scan' is unknown: allowed barrier, bcast, reduce"]),
        ("bcast=rdb", ["bcast has no algorithm 'rdb': allowed seed, library, auto, broadcast.cml"]),
        ("allgather=rdb", ["allgather.rdb needs a power-of-two number of SPEs, got 3"]),
        ("barrier=mailbox", ["barrier.mailbox notifies through signals, mailboxes or atomics"]),
    ],
)
def test_bad_coll_is_refused_naming_the_flag(build, coll, named):
    done = run_cli("mpirun", "-n", "3", "--coll", coll, build("wtime_barrier"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("cellblade: error: --coll "), done.stderr
    for words in named:
        assert words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_mismatched_library_collectives_are_reported_as_deadlocks(build):
    """Ranks whose first library collectives differ: the later ones never run theirs (the two
    schedules would mix notifications) and the deadlock names every rank's call."""
    order = run_cli("mpirun", "-n", "3", "--coll", "library", build("fault_coll_mismatch"), "order")
    assert order.returncode == 1 and order.stdout == ""
    theirs = (
        "MPI_Allreduce of 4 bytes (its library collective 1, where rank 0 called MPI_Bcast from root 0 of 4 bytes) "
        "on MPI_COMM_WORLD"
    )
    assert re.fullmatch(
        r"cellblade: error: deadlock at [0-9.]+ ns: "
        r"rank 0 waits in MPI_Bcast from root 0 of 4 bytes \(library broadcast.binomial_opt\) on MPI_COMM_WORLD; "
        rf"rank 1 waits in {re.escape(theirs)}; rank 2 waits in {re.escape(theirs)}\n",
        order.stderr,
    ), order.stderr
    skip = run_cli("mpirun", "-n", "3", "--coll", "library", build("fault_coll_mismatch"), "skip")
    assert skip.returncode == 1 and skip.stdout == ""
    assert re.fullmatch(
        r"cellblade: error: deadlock at [0-9.]+ ns: rank 0 waits in MPI_Barrier \(library barrier.rdb\) on MPI_COMM_WORLD; "
        r"rank 1 waits in MPI_Barrier \(library barrier.rdb\) on MPI_COMM_WORLD; rank 2 has finished\n",
        skip.stderr,
    ), skip.stderr
    seed = run_cli("mpirun", "-n", "3", build("fault_coll_mismatch"), "skip")
    assert seed.returncode == 1 and "deadlock at" in seed.stderr, seed.stderr


@pytest.mark.parametrize(
    "flags", [["--mode", "ls"], ["--placement", "0,8,1,9"], ["--mode", "ls", "--depth", "8"]]
)
def test_library_collectives_in_ls_mode_and_across_the_chips(build, flags):
    """The library's area sits above the ls-mode heap and the staging chunks; its notifications
    address each rank's SPE as placed."""
    for name in ("collectives", "reduce_derived"):
        done = run_cli("mpirun", "-n", "4", *flags, "--coll", "library", build(name))
        assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


@pytest.mark.parametrize("ranks", [2, 3, 16])
def test_isend_pending_across_collectives(build, ranks):
    """MPICH pt2pt/send_tests' case: a pending Isend/Issend whose receiver first enters a
    barrier, broadcast or all-reduce (on the world and on a duplicate) does not hold them up:
    each pair has an entry per context (layout.rs)."""
    done = run_cli("mpirun", "-n", str(ranks), build("isend_barrier"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_a_window_of_requests_on_one_buffer_fits_the_local_store(build):
    """32 pending 16 KB requests on one buffer share its simulated copy (nb_wire.rs): in ls mode
    32 copies would not fit the local store, as 64 pending 1 MB osu_bw messages did not fit the
    heap before the sharing."""
    done = run_cli("mpirun", "-n", "2", "--mode", "ls", build("isend_window"), "16384", "32")
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


# A library collective (--coll) that can never complete is a deadlock, reported with every
# rank's pending call (mpi/tracker.rs follows the library's notifications), not a hang.
@pytest.mark.parametrize(
    "how, ranks, pending",
    [
        (
            "recv",
            2,
            "rank 0 waits in MPI_Barrier (library barrier.rdb) on MPI_COMM_WORLD; "
            "rank 1 waits in MPI_Recv from 0, tag 3 on MPI_COMM_WORLD",
        ),
        (
            "send",
            2,
            "rank 0 waits in MPI_Barrier (library barrier.rdb) on MPI_COMM_WORLD; "
            "rank 1 waits in MPI_Send to 0, tag 3 on MPI_COMM_WORLD",
        ),
        (
            "bcast",
            2,
            "rank 0 waits in MPI_Barrier (library barrier.rdb) on MPI_COMM_WORLD; rank 1 waits in MPI_Bcast from "
            "root 0 of 4 bytes (its library collective 1, where rank 0 called MPI_Barrier) on MPI_COMM_WORLD",
        ),
        (
            "finalize",
            3,
            "rank 0 waits in MPI_Barrier (library barrier.rdb) on MPI_COMM_WORLD; "
            "rank 1 waits in MPI_Barrier (library barrier.rdb) on MPI_COMM_WORLD; rank 2 has finished",
        ),
    ],
)
def test_a_deadlock_through_a_library_collective_is_reported(build, how, ranks, pending):
    done = run_cli(
        "mpirun", "-n", str(ranks), "--coll", "library", build("fault_coll_deadlock"), how
    )
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert re.fullmatch(
        rf"cellblade: error: deadlock at [0-9.]+ ns: {re.escape(pending)}\n", done.stderr
    ), done.stderr


@pytest.mark.parametrize("coll", ["library", "seed", "auto"])
@pytest.mark.parametrize("ranks", [2, 4, 16])
def test_library_collectives_with_late_ranks_are_not_deadlocks(build, model_params, coll, ranks):
    """Ranks that poll point-to-point for a long time before a collective, and a broadcast leaf
    that finishes and sends before another rank enters, complete: nothing false is reported."""
    done = run_cli("mpirun", "-n", str(ranks), "--coll", coll, build("coll_late_arrival"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


@pytest.mark.parametrize(
    "ranks, flags, ints",
    [
        (2, (), "20000"),
        (3, (), "20000"),
        (2, (), "3"),
        (2, ("--mode", "ls"), "2000"),
        (2, BUFFERED, "3"),
    ],
)
def test_request_free_lets_the_operation_finish_in_the_background(build, ranks, flags, ints):
    """MPI_Request_free returns at once (the exchange that deadlocked while it waited completes);
    a freed Isend's receiver gets its bytes, a freed Irecv's bytes are in its buffer after a later
    message from the same sender or a later collective; bad handles are MPI_ERR_REQUEST."""
    done = run_cli("mpirun", "-n", str(ranks), *flags, build("request_free"), ints)
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


@pytest.mark.parametrize("ranks, flags", [(2, ()), (3, ()), (2, ("--mode", "ls")), (2, BUFFERED)])
def test_cancel_retracts_a_send_no_receive_has_matched(build, ranks, flags):
    """MPI_Cancel of an Isend still in the receiver's entry, queued behind it, or parked in the
    receiver's unexpected queue: each wait returns cancelled, the receiver never sees it, and no
    deadlock is reported; a send already received is not cancelled (MPICH's scancel)."""
    done = run_cli("mpirun", "-n", str(ranks), *flags, build("cancel_send"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_a_freed_irecv_is_delivered_by_finalize(build):
    done = run_cli("mpirun", "-n", "2", build("request_free_finalize"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


@pytest.mark.parametrize(
    "arg, pending", [("send", "MPI_Isend to 1, tag 5"), ("recv", "MPI_Irecv from 1, tag 5")]
)
def test_a_freed_request_that_cannot_finish_is_a_deadlock_at_finalize(build, arg, pending):
    done = run_cli("mpirun", "-n", "2", build("fault_freed_send"), arg)
    assert done.returncode == 1
    assert done.stdout == ""
    assert re.fullmatch(
        r"cellblade: error: deadlock at [0-9.]+ ns: rank 0 waits in MPI_Finalize for "
        + re.escape(pending)
        + r" \(freed\); rank 1 has finished\n",
        done.stderr,
    ), done.stderr


def test_the_c_library_and_the_core_agree_on_request_free_codes():
    """OP_COLLECT's arguments, the answer flags and where the shared core sits in them are
    the same numbers on both sides."""
    root = Path(__file__).parent.parent
    rust = (root / "crates/cellblade/src/mpi/wire.rs").read_text()
    header = (root / "libmpi/src/channel.h").read_text()
    names = r"(COLLECT_\w+|FLAG_\w+|SHARE_CORE_SHIFT)"
    core = dict(re.findall(names + r": \w+ = (\d+);", rust))
    c = dict(re.findall(r"#define " + names + r" (\d+)u?", header))
    assert c == core
    assert set(c) == {
        "COLLECT_NOW",
        "COLLECT_ALL",
        "FLAG_CPU_TIME",
        "FLAG_FREED_DONE",
        "FLAG_SHARE_CORE",
        "SHARE_CORE_SHIFT",
        "FLAG_REPIN",
    }


@pytest.mark.parametrize("coll", ["seed", "library"])
@pytest.mark.parametrize("ranks", [2, 5, 16])
def test_pending_requests_progress_inside_a_collective(build, coll, ranks):
    """Other ranks' sends to receives rank 0 posted before a barrier, all-reduce or broadcast
    complete while rank 0 waits in it, on the seed's collectives and on the library's."""
    done = run_cli("mpirun", "-n", str(ranks), "--coll", coll, build("progress_in_collective"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_auto_collectives_take_the_parameters_given_and_refuse_bad_ones(build, model_params):
    """`--coll auto` chooses by the model's parameters: the launcher passes the cached ones
    (measured once per machine), and a parameter file that is not one is refused by name."""
    from cellblade import ConfigError
    from cellblade.mpi import launcher

    exe = build("wtime_barrier")
    given = launcher.mpirun(exe, [], n=4, coll="auto", params_toml=model_params)
    cached = launcher.mpirun(exe, [], n=4, coll="auto")
    assert given.exit_code == cached.exit_code == 0
    assert given.report["simulated_ns"] == cached.report["simulated_ns"] > 0
    with pytest.raises(ConfigError, match="model parameters"):
        launcher.mpirun(exe, [], n=4, coll="auto", params_toml="not_a_parameter = 1\n")


def test_the_c_library_and_the_core_agree_on_the_channels_layout():
    """The shared-memory channel's offsets (channel.rs and env/channel.c) are the same numbers."""
    root = Path(__file__).parent.parent
    rust = (root / "crates/cellblade/src/mpi/channel.rs").read_text()
    c_side = (root / "libmpi/src/env/channel.c").read_text()
    core = dict(re.findall(r"pub const (\w+): usize = (\d+);", rust))
    (enum,) = re.findall(r"enum \{ (REQ_SEQ[^}]*) \}", c_side)
    c = dict(re.findall(r"(\w+) = (\d+)", enum))
    assert c == {k: core[k] for k in c}
    assert set(c) == {
        "REQ_SEQ",
        "SIM_SLEEPS",
        "RANK_TID",
        "ANS_SEQ",
        "RANK_SLEEPS",
        "REQ_AT",
        "ANS_AT",
        "DATA_AT",
    }

"""Cell SDK programs on the simulated blade (`cellblade run`, sdk/, crates/cellblade/src/sdk/):
the project's examples give their expected output from 32-bit and 64-bit PPE builds, the same
simulated time on every run, and the faults a program can meet are reported as libspe2 and
cellblade say they are, with nothing left running."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import cellblade
from cellblade.programs import Blade
from cellblade.sdk import launcher, toolchain

pytestmark = pytest.mark.skipif(
    not all(
        shutil.which(t) for t in ("powerpc-linux-gnu-gcc", "powerpc64-linux-gnu-gcc", "qemu-ppc")
    ),
    reason="the PowerPC cross compilers and qemu-user are not installed (make sdk-tools)",
)

EXAMPLES = Path(__file__).parent.parent / "examples" / "sdk"


def _cellblade(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "cellblade", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    return done


def _build(folder: Path, spe: str, ppe: str, *ppe_flags: str) -> None:
    toolchain.build_pair(folder, spe, ppe, ppe_flags)


@pytest.fixture(scope="module", params=["-m32", "-m64"])
def dma_abs(request, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("dma_abs")
    example = EXAMPLES / "dma_abs"
    _build(folder, str(example / "spe.c"), str(example / "ppe.c"), request.param)
    return folder


@pytest.mark.parametrize("width", ["-m32", "-m64"])
@pytest.mark.parametrize(
    "example", sorted(p.name for p in EXAMPLES.iterdir() if (p / "expected.txt").exists())
)
def test_each_example_prints_what_it_expects(tmp_path, example, width):
    folder = EXAMPLES / example
    _build(tmp_path, str(folder / "spe.c"), str(folder / "ppe.c"), width)
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # A PPE address printed differs between the 32- and the 64-bit build.
    printed = re.sub(r"0x[0-9a-f]{6,}", "ADDRESS", done.stdout)
    assert printed == (folder / "expected.txt").read_text()
    assert done.stderr == ""


def test_a_run_gives_the_same_simulated_report_every_time(dma_abs):
    reports = []
    for i in range(2):
        done = _cellblade("run", "--out", f"out{i}", "./ppe.elf", cwd=dma_abs)
        assert done.returncode == 0, done.stderr
        report = json.loads((dma_abs / f"out{i}" / "result.json").read_text())
        report.pop("wall_s")
        reports.append(report)
    assert reports[0] == reports[1]
    # The SPE started after the blade's thread creation and moved 2 x 256 bytes over the EIB.
    assert reports[0]["simulated_ns"] > 0 and reports[0]["packets"] > 0


SPE_TRAPS = r"""
#include <spu_mfcio.h>
int main(void) { spu_write_out_mbox(1); __builtin_trap(); return 0; }
"""

PPE_GOES_ON = r"""
#include <errno.h>
#include <libspe2.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, image);
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    int r = spe_context_run(spe, &entry, 0, NULL, NULL, &stop);
    printf("run %d errno %s reason %u\n", r, strerror(errno), stop.stop_reason);
    printf("missing image: %s\n", spe_image_open("nowhere.elf") ? "opened" : strerror(errno));
    return 0;
}
"""


def test_a_crash_of_spe_code_is_the_contexts_runtime_error_and_the_ppe_goes_on(tmp_path):
    (tmp_path / "spe.c").write_text(SPE_TRAPS)
    (tmp_path / "ppe.c").write_text(PPE_GOES_ON)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout
        == "run -1 errno Bad address reason 3\nmissing image: No such file or directory\n"
    )
    assert re.search(
        r"cellblade run: the SPE program of context 0 \(SPE 0\): its process was killed by "
        r"signal \d+: the context stops with SPE_RUNTIME_ERROR",
        done.stderr,
    )


SPE_WAITS = r"""
#include <spu_mfcio.h>
int main(void) { return (int)spu_read_in_mbox(); }
"""

PPE_DIES = r"""
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void *run(void *spe)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_context_run(spe, &entry, 0, NULL, NULL, NULL);
    return NULL;
}
int main(int argc, char **argv)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, image);
    printf("started\n");
    fflush(stdout);
    if (argc > 1) {  /* the SPE waits for a word nobody sends, the PPE crashes meanwhile */
        pthread_t t;
        pthread_create(&t, NULL, run, spe);
        volatile int *nowhere = NULL;
        for (volatile long i = 0; i < 20000000; i++)
            ;
        return *nowhere;
    }
    run(spe);  /* the SPE and the PPE wait for each other */
    return 0;
}
"""


def test_a_ppe_program_that_crashes_ends_the_run_and_its_spe_processes(tmp_path):
    (tmp_path / "spe.c").write_text(SPE_WAITS)
    (tmp_path / "ppe.c").write_text(PPE_DIES)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    result = launcher.run(str(tmp_path / "ppe.elf"), ["crash"])
    assert result.exit_code == 128 + 11
    assert result.message == "the PPE program was killed by SIGSEGV"
    # No PPE or SPE process is left (other tests' helpers may be this process's children too).
    left = [p for p in psutil.Process().children(recursive=True) if p.name().startswith("qemu")]
    assert left == []


SPE_SAYS_THEN_WAITS = r"""
#include <spu_mfcio.h>
int main(void) { spu_write_out_mbox(7); return (int)spu_read_in_mbox(); }
"""

PPE_EXITS_WHILE_THE_SPE_WAITS = r"""
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>
static void *run(void *spe)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_context_run(spe, &entry, 0, NULL, NULL, NULL);
    return NULL;
}
int main(void)
{
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, spe_image_open("spe.elf"));
    pthread_t t;
    pthread_create(&t, NULL, run, spe);
    unsigned int word;
    while (spe_out_mbox_status(spe) == 0)
        ;
    spe_out_mbox_read(spe, &word, 1);
    printf("the SPE said %u\n", word);
    return 3;  /* the SPE thread, waiting for a word, ends with the process as on Linux */
}
"""


def test_a_ppe_program_that_exits_while_an_spe_waits_ends_the_run_there(tmp_path, monkeypatch):
    (tmp_path / "spe.c").write_text(SPE_SAYS_THEN_WAITS)
    (tmp_path / "ppe.c").write_text(PPE_EXITS_WHILE_THE_SPE_WAITS)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    monkeypatch.chdir(tmp_path)
    run = cellblade.sdk_run(tmp_path / "ppe.elf")
    assert (run["exit_code"], run["stdout"], run["stderr"]) == (3, "the SPE said 7\n", "")
    # The run's report is the blade's at the PPE program's end (the SPE had started and
    # written its word by then), not an empty one.
    assert run["simulated_ns"] > 0 and run["events"] > 0
    left = [p for p in psutil.Process().children(recursive=True) if p.name().startswith("qemu")]
    assert left == []


def test_a_deadlock_names_what_the_ppe_and_the_spe_wait_for(tmp_path):
    (tmp_path / "spe.c").write_text(SPE_WAITS)
    (tmp_path / "ppe.c").write_text(PPE_DIES)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == "started\n"
    assert "deadlock" in done.stderr
    assert "spe_context_run of context 0 (SPE 0)" in done.stderr
    assert "the inbound mailbox of spe 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_program_that_is_not_a_ppe_executable_is_refused(tmp_path):
    (tmp_path / "prog").write_text("#!/bin/sh\necho hi\n")
    done = _cellblade("run", "./prog", cwd=tmp_path)
    assert done.returncode == 2
    assert "PROGRAM ./prog: not a big-endian PowerPC executable" in done.stderr
    done = _cellblade("run", "./absent", cwd=tmp_path)
    assert done.returncode == 2
    assert "PROGRAM ./absent: no such file" in done.stderr


PPE_EMBEDDED = r"""
#include <libspe2.h>
#include <stdio.h>
extern spe_program_handle_t abs_spe;
static float values[64] __attribute__((aligned(128)));
int main(void)
{
    for (int i = 0; i < 64; i++)
        values[i] = -i;
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    if (spe_program_load(spe, &abs_spe) != 0) {
        perror("spe_program_load");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_context_run(spe, &entry, 0, values, NULL, NULL);
    printf("%g %g %g\n", values[0], values[1], values[63]);
    printf("closing an embedded image: %d\n", spe_image_close(&abs_spe));
    return 0;
}
"""


@pytest.mark.parametrize("width", ["-m32", "-m64"])
def test_an_embedded_spe_image_runs_and_leaves_no_file(tmp_path, width):
    spe = EXAMPLES / "vector_abs" / "spe.c"
    assert _cellblade("spu-gcc", "-O2", str(spe), "-o", "spe.elf", cwd=tmp_path).returncode == 0
    embedded = _cellblade("ppu-embedspu", width, "abs_spe", "spe.elf", "abs.o", cwd=tmp_path)
    assert embedded.returncode == 0, embedded.stderr
    (tmp_path / "ppe.c").write_text(PPE_EMBEDDED)
    built = _cellblade("ppu-gcc", width, "ppe.c", "abs.o", "-lspe2", "-o", "ppe.elf", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    (tmp_path / "spe.elf").unlink()  # the image is the PPE program's own now
    # A temporary folder of the run's own, so that other runs on the host do not count.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = _cellblade(
        "run", "./ppe.elf", cwd=tmp_path, env={**os.environ, "TMPDIR": str(temporary)}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0 1 63\nclosing an embedded image: -1\n"
    assert list(temporary.iterdir()) == []


def test_embedspu_refuses_what_it_cannot_embed(tmp_path):
    (tmp_path / "text.elf").write_text("not an executable")
    for args, says in [
        (["abs", "absent.elf", "o.o"], "SPE-EXECUTABLE absent.elf: no such file"),
        (["abs", "text.elf", "o.o"], "SPE-EXECUTABLE text.elf: not an SPE executable"),
        (["1abs", "text.elf", "o.o"], "SYMBOL '1abs': not a C identifier"),
        (["abs", "o.o"], "2 arguments besides flags: ppu-embedspu takes SYMBOL SPE-EXECUTABLE"),
    ]:
        done = _cellblade("ppu-embedspu", *args, cwd=tmp_path)
        assert (done.returncode, says in done.stderr) == (2, True), done.stderr


def test_an_sdk_makefile_builds_with_make_footer(tmp_path):
    """The SDK's layout: spu/ builds the SPE program into an embedded library, the top folder
    the PPE program that links it, with CELL_TOP at `cellblade sdk-top`."""
    spu = tmp_path / "spu"
    spu.mkdir()
    shutil.copy(EXAMPLES / "vector_abs" / "spe.c", spu / "abs_spe.c")
    (spu / "Makefile").write_text(
        "PROGRAMS_spu := abs_spe\nLIBRARY_embed := lib_abs_spu.a\n"
        "include $(CELL_TOP)/buildutils/make.footer\n"
    )
    (tmp_path / "ppe.c").write_text(PPE_EMBEDDED)
    (tmp_path / "Makefile").write_text(
        "DIRS = spu\nPROGRAM_ppu = abs\nIMPORTS = spu/lib_abs_spu.a -lspe2\n"
        "include $(CELL_TOP)/buildutils/make.footer\n"
    )
    top = _cellblade("sdk-top", cwd=tmp_path)
    assert top.returncode == 0 and (Path(top.stdout.strip()) / "buildutils/make.footer").is_file()
    env = {
        **os.environ,
        "CELL_TOP": top.stdout.strip(),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    built = subprocess.run(["make"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "cellblade ppu-embedspu -m32 abs_spe abs_spe abs_spe-embed.o" in built.stdout
    done = _cellblade("run", "./abs", cwd=tmp_path)
    assert done.stdout.startswith("0 1 63\n"), done.stderr
    cleaned = subprocess.run(["make", "clean"], cwd=tmp_path, env=env, capture_output=True)
    assert cleaned.returncode == 0
    assert sorted(p.name for p in spu.iterdir()) == ["Makefile", "abs_spe.c"]


PPE_SLEEPS = r"""
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>
static void *run(void *spe)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_context_run(spe, &entry, 0, NULL, NULL, NULL);
    return NULL;
}
int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, image);
    pthread_t t;
    pthread_create(&t, NULL, run, spe);
    printf("sleeping\n");
    fflush(stdout);
    pthread_join(t, NULL);  /* the SPE computes for ever */
    return 0;
}
"""

SPE_COMPUTES = r"""
int main(void) { for (volatile int i = 0;; i++) ; }
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_end_the_run_and_every_process(tmp_path, signum):
    (tmp_path / "spe.c").write_text(SPE_COMPUTES)
    (tmp_path / "ppe.c").write_text(PPE_SLEEPS)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    run = subprocess.Popen(
        [sys.executable, "-m", "cellblade", "run", "./ppe.elf"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert run.stdout.readline() == "sleeping\n"
    for _ in range(100):  # until the SPE process has started
        family = psutil.Process(run.pid).children(recursive=True)
        if len(family) >= 2:
            break
        time.sleep(0.05)
    assert len(family) == 2  # the PPE process and the SPE process
    run.send_signal(signum)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 128 + signum
    name = signal.Signals(signum).name
    assert f"ended by {name}: the PPE and SPE processes were ended" in err
    assert not [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.parametrize(("workload", "spes"), [("mailbox", 16), ("dma", 16), ("mailbox", 1)])
def test_sixteen_ppe_threads_each_with_an_spe_run_to_the_end(tmp_path, workload, spes):
    """The bench's program: 16 PPE threads polling their SPE's mailbox status at once (the
    blade's PPE once held one guarded load at a time, and lost the others' wake-ups)."""
    folder = EXAMPLES / "bench"
    _build(tmp_path, str(folder / "spe.c"), str(folder / "ppe.c"), "-m32")
    done = _cellblade("run", "./ppe.elf", workload, str(spes), "20", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")


SPE_TIMES = r"""
#include <spu_mfcio.h>
#include <stdio.h>
static char buf[16384] __attribute__((aligned(128)));
int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    mfc_write_tag_mask(1 << 3);
    unsigned int d0 = spu_read_decrementer();
    mfc_get(buf, argp, sizeof buf, 3, 0, 0);
    mfc_read_tag_status_all();
    unsigned int d1 = spu_read_decrementer();
    spu_write_out_mbox(7);
    unsigned int d2 = spu_read_decrementer();
    printf("%u %u\n", d0 - d1, d1 - d2);
    return 0;
}
"""

PPE_GIVES_MEMORY = r"""
#include <libspe2.h>
static char memory[16384] __attribute__((aligned(128)));
int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, image);
    unsigned int entry = SPE_DEFAULT_ENTRY;
    return spe_context_run(spe, &entry, 0, memory, NULL, NULL);
}
"""


def test_c_and_python_programs_time_the_same_operations_alike(tmp_path, monkeypatch):
    """One implementation below both fronts: a 16 KB GET from main memory and its wait, then an
    outbound mailbox write, timed with the decrementer by a C SPE program and by a Python one."""
    (tmp_path / "spe.c").write_text(SPE_TIMES)
    (tmp_path / "ppe.c").write_text(PPE_GIVES_MEMORY)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    monkeypatch.chdir(tmp_path)  # where the program opens spe.elf
    # The Python program's own code costs nothing: so does the C one's, under --compute zero.
    run = cellblade.sdk_run(tmp_path / "ppe.elf", compute="zero")
    assert run["exit_code"] == 0, run
    from_c = [int(w) for w in run["stdout"].split()]

    seen = {}

    def reader(spu):
        buf = spu.ls_alloc(16384, 128)
        spu.mfc_write_tag_mask(1 << 3)
        d0 = spu.spu_read_decrementer()
        yield spu.mfc_get(buf, 0, 16384, 3)
        yield spu.mfc_read_tag_status_all()
        d1 = spu.spu_read_decrementer()
        yield spu.spu_write_out_mbox(7)
        seen["ticks"] = [d0 - d1, d1 - spu.spu_read_decrementer()]

    Blade("qs20").spe(0, reader).run()
    assert from_c == seen["ticks"]
    assert from_c[0] > 0


def test_the_python_call_returns_the_output_time_and_machine(dma_abs, monkeypatch):
    monkeypatch.chdir(dma_abs)
    run = cellblade.sdk_run(dma_abs / "ppe.elf", machine="qs22")
    assert run["exit_code"] == 0 and run["message"] == ""
    assert run["stdout"].startswith("PPE: starting the SPE\nSPE: fetching 64 floats from 0x")
    assert run["stderr"] == ""
    assert run["simulated_ns"] > 0 and "[eib]" in run["machine_toml"]
    with pytest.raises(cellblade.ConfigError, match="absent.elf: no such file"):
        cellblade.sdk_run(dma_abs / "absent.elf")


SPE_BAD_DMA = r"""
#include <spu_mfcio.h>
static char buf[256] __attribute__((aligned(128)));
int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    mfc_get(buf, argp, 128, 1, 0, 0); /* a good one first: it completes */
    if (envp == 1)
        mfc_get(buf + 4, argp, 128, 1, 0, 0);  /* misaligned */
    else if (envp == 2)
        mfc_get(buf, 0x10, 128, 1, 0, 0);      /* no PPE memory there */
    else
        mfc_get(buf, argp, 128, 40, 0, 0);     /* no tag 40 */
    mfc_write_tag_mask(2);
    mfc_read_tag_status_all();
    return 0;
}
"""

PPE_REPORTS_EXCEPTIONS = r"""
#include <libspe2.h>
#include <string.h>
static char memory[128] __attribute__((aligned(128)));
int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    for (unsigned long kind = 1; kind <= 3; kind++) {
        spe_context_ptr_t spe = spe_context_create(0, NULL);
        spe_program_load(spe, image);
        unsigned int entry = SPE_DEFAULT_ENTRY;
        spe_stop_info_t stop;
        int r = spe_context_run(spe, &entry, 0, memory, (void *)kind, &stop);
        printf("%d %s reason %u exception %#x\n", r, strerror(errno), stop.stop_reason,
               stop.result.spe_runtime_exception);
        spe_context_destroy(spe);
    }
    return 0;
}
"""


def test_an_illegal_dma_stops_its_spe_with_the_exception_libspe2_gives(tmp_path):
    (tmp_path / "spe.c").write_text(SPE_BAD_DMA)
    (tmp_path / "ppe.c").write_text(PPE_REPORTS_EXCEPTIONS)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "-1 Input/output error reason 4 exception 0x8\n"
        "-1 Input/output error reason 4 exception 0x20\n"
        "-1 Input/output error reason 4 exception 0x800\n"
    )
    notes = done.stderr.splitlines()
    assert len(notes) == 3
    assert notes[0].startswith(
        "cellblade run: the SPE program of context 0 (SPE 0): MFC command 0x40 (lsa=0x"
    )
    assert "SPE_RUNTIME_EXCEPTION (SPE_DMA_ALIGNMENT)" in notes[0]
    assert "ea=0x10, size=128, tag=1) refused" in notes[1]
    assert "maps to nothing" in notes[1] and "(SPE_DMA_SEGMENTATION)" in notes[1]
    assert "tag 40 is out of range" in notes[2] and "(SPE_INVALID_DMA)" in notes[2]


SPE_PROXY = r"""
#include <spu_mfcio.h>
static unsigned int buffer[32] __attribute__((aligned(128)));
int main(void)
{
    spu_write_out_mbox((unsigned int)buffer); /* where the PPE's proxy DMAs go */
    spu_read_in_mbox();                       /* the PPE's get has landed */
    for (int i = 0; i < 32; i++)
        buffer[i] *= 2;
    spu_write_out_mbox(1);                    /* doubled: the PPE puts them back */
    return 0;
}
"""

PPE_PROXY = r"""
#include <errno.h>
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>
static unsigned int in[32] __attribute__((aligned(128))), out[32] __attribute__((aligned(128)));
static void *run(void *spe)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_context_run(spe, &entry, 0, NULL, NULL, NULL);
    return NULL;
}
int main(void)
{
    for (int i = 0; i < 32; i++)
        in[i] = i;
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, image);
    pthread_t t;
    pthread_create(&t, NULL, run, spe);
    unsigned int ls = 0, done = 0, status = 0, go = 1;
    while (spe_out_mbox_read(spe, &ls, 1) == 0)
        ;
    int got = spe_mfcio_get(spe, ls, in, sizeof in, 3, 0, 0);
    spe_mfcio_tag_status_read(spe, 1 << 3, SPE_TAG_ALL, &status);
    printf("get %d, tag status %#x\n", got, status);
    spe_in_mbox_write(spe, &go, 1, SPE_MBOX_ALL_BLOCKING);
    while (spe_out_mbox_read(spe, &done, 1) == 0)
        ;
    spe_mfcio_putf(spe, ls, out, sizeof out, 4, 0, 0);
    spe_mfcio_tag_status_read(spe, 1 << 4, SPE_TAG_ANY, &status);
    printf("put: tag status %#x, out[31] = %u\n", status, out[31]);
    spe_mfcio_tag_status_read(spe, 1 << 5, SPE_TAG_IMMEDIATE, &status);
    printf("an idle group: %#x\n", status);
    int bad = spe_mfcio_get(spe, ls, in, sizeof in, 16, 0, 0);
    printf("tag 16: %d %s\n", bad, errno == EINVAL ? "EINVAL" : "?");
    bad = spe_mfcio_get(spe, ls + 4, in, sizeof in, 1, 0, 0);
    printf("misaligned: %d %s\n", bad, errno == EINVAL ? "EINVAL" : "?");
    pthread_join(t, NULL);
    spe_context_destroy(spe);
    return 0;
}
"""


def test_proxy_dma_from_the_ppe_moves_data_and_reports_its_tag_groups(tmp_path):
    (tmp_path / "spe.c").write_text(SPE_PROXY)
    (tmp_path / "ppe.c").write_text(PPE_PROXY)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "get 0, tag status 0x8\n"
        "put: tag status 0x10, out[31] = 62\n"
        "an idle group: 0x20\n"
        "tag 16: -1 EINVAL\n"
        "misaligned: -1 EINVAL\n"
    )
    assert (
        "proxy DMA 0x40 to context 0" in done.stderr and "the call fails with EINVAL" in done.stderr
    )


PPE_PLACES = r"""
#include <errno.h>
#include <libspe2.h>
#include <stdio.h>
static const char *err(void *p) { return p ? "ok" : errno == EEXIST ? "EEXIST" : errno == ESRCH ? "ESRCH" : errno == EBUSY ? "EBUSY" : "?"; }
int main(void)
{
    printf("nodes %d, SPEs %d, on node 1 %d, usable %d, type %d, nodes of node 0 %d\n",
           spe_cpu_info_get(SPE_COUNT_PHYSICAL_CPU_NODES, -1),
           spe_cpu_info_get(SPE_COUNT_PHYSICAL_SPES, -1), spe_cpu_info_get(SPE_COUNT_PHYSICAL_SPES, 1),
           spe_cpu_info_get(SPE_COUNT_USABLE_SPES, 0), spe_cpu_info_get(SPE_CPU_TYPE, -1),
           spe_cpu_info_get(SPE_COUNT_PHYSICAL_CPU_NODES, 0));
    spe_gang_context_ptr_t gang = spe_gang_context_create(0), other = spe_gang_context_create(0);
    spe_context_ptr_t first = spe_context_create_affinity(SPE_AFFINITY_MEMORY, NULL, gang);
    spe_context_ptr_t second = spe_context_create_affinity(0, first, gang);
    printf("memory %s, next %s\n", err(first), err(second));
    printf("memory again %s\n", err(spe_context_create_affinity(SPE_AFFINITY_MEMORY, NULL, gang)));
    printf("a second follower %s\n", err(spe_context_create_affinity(0, first, gang)));
    printf("another gang's neighbour %s\n", err(spe_context_create_affinity(0, second, other)));
    spe_context_ptr_t chain = second;
    int placed = 2;
    while ((chain = spe_context_create_affinity(0, chain ? chain : second, gang)) != NULL)
        placed++;
    printf("a chain of %d on one chip, then %s\n", placed, err(chain));
    return 0;
}
"""


def test_cpu_info_gangs_and_affinity_answer_as_libspe2_does(tmp_path):
    (tmp_path / "spe.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "ppe.c").write_text(PPE_PLACES)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "nodes 2, SPEs 16, on node 1 8, usable 8, type 1, nodes of node 0 -1\n"
        "memory ok, next ok\n"
        "memory again EEXIST\n"
        "a second follower EEXIST\n"
        "another gang's neighbour ESRCH\n"
        "a chain of 8 on one chip, then EEXIST\n"
    )


SPE_FAULTS = r"""
#include <spu_mfcio.h>
int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    if (argp == 1)
        spu_hcmpeq(3, 3);
    else
        spu_readch(SPU_WrOutMbox);
    return 0;
}
"""

PPE_FAULTS = r"""
#include <errno.h>
#include <libspe2.h>
#include <stdio.h>
int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    for (unsigned long which = 1; which <= 2; which++) {
        spe_context_ptr_t spe = spe_context_create(0, NULL);
        spe_program_load(spe, image);
        unsigned int entry = SPE_DEFAULT_ENTRY;
        spe_stop_info_t stop;
        int r = spe_context_run(spe, &entry, 0, (void *)which, NULL, &stop);
        printf("run %d errno %s reason %u error %#x\n", r, errno == EFAULT ? "EFAULT" : "?",
               stop.stop_reason, stop.result.spe_runtime_error);
        spe_context_destroy(spe);
    }
    return 0;
}
"""


def test_a_halt_and_an_invalid_channel_are_runtime_errors_as_libspe2_gives(tmp_path):
    (tmp_path / "spe.c").write_text(SPE_FAULTS)
    (tmp_path / "ppe.c").write_text(PPE_FAULTS)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    done = _cellblade("run", "./ppe.elf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "run -1 errno EFAULT reason 3 error 0x4\nrun -1 errno EFAULT reason 3 error 0x40\n"
    )
    assert "spu_readch of channel 28: the SPU has no such channel" in done.stderr


PPE_BARRIER = r"""
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_here = PTHREAD_COND_INITIALIZER;
static int arrived;
static spe_program_handle_t *image;
static void *run(void *arg)
{
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    spe_program_load(spe, image);
    pthread_mutex_lock(&lock);  /* a barrier of mutex and condition, as libspe2's tests have */
    if (++arrived == 4)
        pthread_cond_broadcast(&all_here);
    while (arrived < 4)
        pthread_cond_wait(&all_here, &lock);
    pthread_mutex_unlock(&lock);
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    spe_context_run(spe, &entry, 0, arg, NULL, &stop);
    spe_context_destroy(spe);
    return (void *)(long)stop.result.spe_exit_code;
}
int main(void)
{
    image = spe_image_open("spe.elf");
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, run, (void *)i);
    long sum = 0;
    for (int i = 0; i < 4; i++) {
        void *code;
        pthread_join(t[i], &code);
        sum += (long)code;
    }
    printf("exit codes sum to %ld\n", sum);
    return 0;
}
"""


def test_ppe_threads_meeting_at_a_mutex_and_condition_run_alike_every_time(tmp_path, monkeypatch):
    spe = "int main(unsigned long long s, unsigned long long a, unsigned long long e)"
    (tmp_path / "spe.c").write_text(spe + " { return (int)a + 10; }\n")
    (tmp_path / "ppe.c").write_text(PPE_BARRIER)
    _build(tmp_path, "spe.c", "ppe.c", "-m32")
    monkeypatch.chdir(tmp_path)  # where the program opens spe.elf
    times = []
    for _ in range(2):
        result = launcher.run(str(tmp_path / "ppe.elf"), [], capture=True)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == "exit codes sum to 46\n"
        times.append(result.report["simulated_ns"])
    assert times[0] == times[1] > 0

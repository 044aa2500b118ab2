"""Shared helpers: run the command line as a user would, in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests are derandomized: the same examples on every run and machine, so that a red
# `make test` is reproducible and CI cannot pass where a fresh clone fails. A failing example
# found while exploring becomes an explicit `@example` on its test.
# `HYPOTHESIS_PROFILE=explore make test` searches with fresh random examples instead.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("explore", max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derandomized"))

# A test run started with SIGINT ignored (under nohup, or as a background job of a script)
# would pass the ignoring down to every command it starts, and the tests of Ctrl-C would send
# signals nobody receives. Python's own handler here makes each child start with the default
# (a handler, unlike an ignored signal, is reset at exec).
signal.signal(signal.SIGINT, signal.default_int_handler)


def run_cli(*args: str, backtrace: bool = False) -> subprocess.CompletedProcess[str]:
    """`cellblade ARGS...` through `python -m cellblade.cli`, output captured as text."""
    env = {key: value for key, value in os.environ.items() if key != "CELLBLADE_BACKTRACE"}
    if backtrace:
        env["CELLBLADE_BACKTRACE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "cellblade.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


MPI_SOURCES = Path(__file__).parent.parent / "libmpi" / "tests"


@pytest.fixture(scope="session")
def build(tmp_path_factory):
    """Compile libmpi/tests/NAME.c with `cellblade mpicc` once per session; returns the
    executable's path."""
    out = tmp_path_factory.mktemp("mpi")
    built: dict[str, str] = {}

    def make(name: str) -> str:
        if name not in built:
            exe = out / name
            source = MPI_SOURCES / f"{name}.c"
            done = run_cli(
                "mpicc", "-O1", "-Wall", "-I", str(MPI_SOURCES), str(source), "-o", str(exe), "-lm"
            )
            assert done.returncode == 0, done.stderr
            built[name] = str(exe)
        return built[name]

    return make


@pytest.fixture(scope="session")
def model_params() -> str:
    """The model's parameters of qs20, measured once and cached (`model.params_for`), so that a
    `--coll auto` job in a test does not measure them, and say so on stderr, itself."""
    from cellblade import model

    return model.params_for()


def usage_error(*args: str) -> str:
    """Runs a command that must be refused as bad usage; returns its one-line message."""
    done = run_cli(*args)
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("cellblade: error: "), done.stderr
    return done.stderr


@pytest.fixture
def fake_core(monkeypatch):
    """Replaces the compiled core's run_stats; returns the list of requests it received."""
    import cellblade

    requests = []

    def run_stats(request, machine=None):
        choice = {key: value for key, value in machine.items() if key != "set"}
        requests.append({**request, "machine": choice, "set": machine["set"]})
        return {"result": {}, "machine_toml": ""}

    monkeypatch.setattr(cellblade._core, "run_stats", run_stats)
    return requests

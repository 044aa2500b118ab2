"""The command line alone: what it refuses, and the request it sends to the core."""

import pytest
from conftest import usage_error

from cellblade.cli import cellstats_main


@pytest.mark.parametrize(
    "args, named",
    [
        (["-f", "dmaget", "-n", "2", "-N", "2"], ["-N", "-n", "not allowed"]),
        (["-f", "dmaget", "-b", "12x"], ["-b", "'12x'", "k=1024"]),
        (["-f", "dmaget", "-t", "1.5k"], ["-t", "'1.5k'"]),
        (["-f", "dmaget", "-i", "1.5m"], ["-i", "'1.5m'", "k=1000"]),
        (["-f", "dmaget", "-w", "-1"], ["-w"]),
        (["-f", "dmaget", "-c", "2"], ["-c", "2", "0, 1"]),
        (["-f", "dmaget", "-m", "x"], ["-m", "'x'"]),
        (["-f", "dmaget", "-n", "17"], ["-n", "'17'", "1 to 16"]),
        (["-f", "dmaget", "-N", "0"], ["-N", "'0'", "1 to 16"]),
        (["-f", "dmaget", "--preset", "qs22", "--machine", "x.toml"], ["--machine", "--preset"]),
        (["-n", "1"], ["-f"]),
    ],
)
def test_bad_stats_flags_exit_2_naming_the_flag(args, named):
    message = usage_error("stats", *args)
    for word in named:
        assert word in message


def test_sweep_refuses_functions_without_a_size():
    message = usage_error("stats", "-f", "mailbox", "--sweep")
    assert "--sweep" in message and "'mailbox'" in message and "dma*" in message


def test_sweep_refuses_the_flags_it_varies():
    message = usage_error("stats", "-f", "dmaget", "--sweep", "-b", "1k", "-l", "4")
    assert "-b, -l cannot be combined with --sweep" in message


def test_unknown_command_lists_the_commands():
    message = usage_error("nosuch")
    assert "'nosuch'" in message and "calibrate" in message


def test_cellstats_uses_its_own_name(capsys):
    with pytest.raises(SystemExit) as exit:
        cellstats_main(["-f", "dmaget", "-c", "3"])
    assert exit.value.code == 2
    assert capsys.readouterr().err.startswith("cellstats: error: argument -c/--cell")


def test_flags_become_the_core_request(fake_core, capsys):
    argv = "-f dmaget -N 6 -b 1k -t 2k -i 1m -w 1k -c 1 -m 1 -s --seed 7 --set a.b=2 --set c=3"
    cellstats_main([*argv.split(), "--json"])
    assert fake_core == [
        {
            "function": "dmaget",
            "spes": 6,
            "shared": False,
            "cell": 1,
            "xdram": 1,
            "spe_target": True,
            "size": 1024,
            "stride": 2048,
            "iterations": 1_000_000,
            "warmup": 1000,
            "syscall": False,
            "seed": 7,
            "machine": {"preset": "qs20"},
            "set": ["a.b=2", "c=3"],
        }
    ]
    assert capsys.readouterr().out == "{}\n"


def test_defaults_leave_per_function_values_to_the_core(fake_core):
    cellstats_main(["-f", "mailbox", "--syscall", "--preset", "qs22", "--json"])
    (request,) = fake_core
    assert request == {
        "function": "mailbox",
        "shared": True,
        "cell": 0,
        "xdram": 0,
        "spe_target": False,
        "syscall": True,
        "machine": {"preset": "qs22"},
        "set": [],
    }


def test_machine_file_is_sent_as_text(fake_core, tmp_path):
    machine = tmp_path / "mine.toml"
    machine.write_text("[eib]\nrings = 4\n")
    cellstats_main(["-f", "dmaget", "--machine", str(machine), "--json"])
    assert fake_core[0]["machine"] == {"toml": "[eib]\nrings = 4\n"}


def test_missing_machine_file_is_one_line_exit_2(tmp_path, capsys):
    missing = tmp_path / "missing.toml"
    assert cellstats_main(["-f", "dmaget", "--machine", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"cellstats: error: --machine {missing} cannot be read: No such file or directory\n"
    )

"""What the core cannot simulate it refuses, naming the key, field or program and the value
(issue 13's bad-input findings that live in the core)."""

import pytest
from conftest import run_cli

import cellblade
from cellblade import ConfigError, ProgramError
from cellblade.programs import Blade


@pytest.mark.parametrize("value, shown", [("1e18", "1e18"), ("inf", "inf"), ("1e300", "1e300")])
def test_a_latency_past_its_range_is_refused_not_wrapped_into_a_plausible_answer(value, shown):
    done = run_cli(
        "stats", "-f", "signal", "-n", "1", "-i", "10", "--set", f"ppe.mmio_ns={value}", "--json"
    )
    assert done.returncode == 2
    assert (
        f"machine key 'ppe.mmio_ns' = {shown} is out of range: allowed 0 to 1000000" in done.stderr
    )
    assert "212.5" not in done.stdout


def test_a_negative_value_of_an_unsigned_key_names_the_flag_and_the_range():
    done = run_cli("calibrate", "--set", "eib.draw_seed=-1")
    assert done.returncode == 2
    assert done.stderr == (
        "cellblade: error: --set eib.draw_seed=-1: machine key 'eib.draw_seed' = -1 is out of "
        "range: allowed 0 to 4294967295\n"
    )


def test_a_machine_file_type_error_names_the_key_and_the_line(tmp_path):
    text = cellblade._core.preset_toml("qs20")
    line = next(
        i for i, text_line in enumerate(text.splitlines(), 1) if text_line.startswith("data_gbps")
    )
    machine = tmp_path / "fast.toml"
    machine.write_text(text.replace("data_gbps = 13.6", 'data_gbps = "fast"', 1))
    with pytest.raises(ConfigError) as error:
        cellblade.run_stats("dmaget", machine=machine)
    assert str(error.value) == (
        f"machine file key 'bif.data_gbps' at line {line}: "
        'invalid type: string "fast", expected f64'
    )


def test_a_python_program_computing_past_the_end_of_time_is_an_overflow_error():
    def forever(spu):
        yield spu.compute(2**61)

    with pytest.raises(
        ProgramError,
        match=r"simulated time overflow: spe 0: "
        r"compute\(2305843009213693952 core cycles\)",
    ):
        Blade().spe(0, forever).run()


def test_a_ppe_read_of_a_register_that_does_not_exist_is_a_program_error():
    def read(ppe):
        yield ppe.mmio_read(1, 0x4000)

    def idle(spu):
        yield spu.compute(1)

    with pytest.raises(
        ProgramError,
        match=r"ppe: mmio_read of register 0x4000 of spe 1: "
        r"no such register",
    ):
        Blade().spe(1, idle).ppe(read).run()


@pytest.mark.parametrize(
    "function, fields, message",
    [
        ("dmaget", {"size": 0}, "size 0 is not allowed: at least 1 byte per transfer"),
        ("fetchadd", {"size": 0}, "size 0 is not allowed: 4 to 128 bytes"),
        ("dmaget", {"spes": 2, "shared": False, "stride": 0}, "stride 0 is not allowed"),
        ("mailbox", {"size": 65536}, "size is not allowed here: mailbox moves no buffer"),
        ("dmaget", {"list_elements": 4}, "list_elements is not allowed here: dmaget is not a list"),
        ("dmaget", {"spes": 2, "stride": 4096}, "stride is not allowed here: it spaces private"),
    ],
)
def test_values_that_mean_nothing_are_refused_naming_the_field(function, fields, message):
    with pytest.raises(ConfigError, match=message):
        cellblade.run_stats(function, **fields)


def test_a_placement_file_names_as_many_spes_as_the_run_has_threads(tmp_path):
    placement = tmp_path / "four.txt"
    placement.write_text("6 4 2 0\n")
    result = cellblade.run_stats(
        "dmaget", spes=4, shared=False, size=1024, iterations=5, placement_file=placement
    )
    assert [spe["spe"] for spe in result["per_spe"]] == [0, 2, 4, 6]
    placement.write_text("0 1 2 3 4 5 6 7\n")
    with pytest.raises(ConfigError, match="placement file names 8 SPEs, the run has 4"):
        cellblade.run_stats("dmaget", spes=4, shared=False, placement_file=placement)

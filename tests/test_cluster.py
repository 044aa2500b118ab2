"""Clusters of blades (seed 003 section 6.1): the `cluster` request from Python and the
`cellblade cluster` command, their limits and a 2-blade run end to end."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

import cellblade
from cellblade import cluster, machine


@pytest.mark.parametrize("blades", [0, 5])
def test_blades_outside_the_limit_are_refused_naming_the_flag(blades):
    done = run_cli("cluster", "barrier", "--blades", str(blades))
    assert done.returncode == 2
    assert done.stderr == f"cellblade: error: --blades {blades} is not allowed: 1 to 4\n"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("blades", [0, 5])
def test_the_api_names_the_blades_field(blades):
    with pytest.raises(cellblade.ConfigError) as caught:
        cluster.run("barrier", blades=blades)
    assert caught.value.field == "blades"
    assert str(caught.value) == f"blades {blades} is not allowed: 1 to 4"


def test_the_limit_comes_from_the_core():
    assert cluster.CLUSTER["max_blades"] == 4
    done = run_cli("cluster", "--help")
    assert "blades, 1 to 4 (default: 2)" in " ".join(done.stdout.split())


def test_two_blades_run_barrier_and_broadcast_with_every_spe():
    barrier = cluster.run("barrier", blades=2)
    assert [(r["spes"], r["network_messages"], r["verified"]) for r in barrier] == [(32, 2, True)]
    bcast = cluster.run("broadcast", blades=2, spes=4, sizes=[64, 1024])
    assert [(r["spes"], r["size_bytes"], r["verified"]) for r in bcast] == [
        (8, 64, True),
        (8, 1024, True),
    ]
    # One network message's worth of time (2500 ns: two 500 ns overheads and 1500 ns latency)
    # beyond one blade's barrier, less up to one PPE status poll (one load from a problem-state
    # register, plus the loop), as the core's own test allows (cluster/coll.rs): the PPE sees
    # the leader's arrival at its next poll, so the runs' other parts may differ by one poll.
    one = cluster.run("barrier", blades=1)[0]["latency_ns"]
    mmio = next(p["value"] for p in machine.parameters() if p["key"] == "ppe.mmio_ns")
    assert barrier[0]["latency_ns"] - one >= 2500.0 - (mmio + 100.0)
    # A slower network shows in the simulated time: 10 us more per round, give or take where
    # the PPEs' mailbox polls fall (a few ns).
    slow = cluster.run("barrier", blades=2, overrides=["network.latency_ns=11500"])
    assert slow[0]["latency_ns"] == pytest.approx(barrier[0]["latency_ns"] + 10000.0, abs=10.0)


def test_the_command_prints_a_2_blade_run_as_json():
    done = run_cli(
        "cluster", "broadcast", "--blades", "2", "--spes", "2", "--sizes", "32", "--json"
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(r["blades"], r["spes"], r["size_bytes"], r["verified"]) for r in rows] == [
        (2, 4, 32, True)
    ]
    assert rows[0]["predicted_ns"] is None


def test_a_broadcast_size_the_cluster_cannot_move_names_the_flag():
    done = run_cli("cluster", "broadcast", "--sizes", "24")
    assert done.returncode == 2
    assert done.stderr == (
        "cellblade: error: --sizes 24 is not allowed: "
        "a multiple of 16 bytes, at least 16, on a cluster\n"
    )

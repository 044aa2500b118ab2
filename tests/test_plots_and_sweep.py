"""Sweep axes and figures, without the simulator."""

import pytest

from cellblade import sweep
from cellblade.plots import sweep_figure


def test_dma_sizes_span_16_bytes_to_16_kib():
    sizes = [size for size, _ in sweep.points("dmaget")]
    assert sizes == [16 << k for k in range(11)]


def test_list_points_always_move_16_kib():
    points = sweep.points("dmalistput")
    assert [elements for _, elements in points] == [1 << k for k in range(11)]
    assert {size * elements for size, elements in points} == {16384}


def test_atomics_stop_at_one_cache_line():
    assert [size for size, _ in sweep.points("fetchadd")] == [4, 8, 16, 32, 64, 128]


@pytest.mark.parametrize("function", ["mailbox", "signal", "mkthread"])
def test_functions_without_a_size_are_not_swept(function):
    with pytest.raises(ValueError, match=f"'{function}' has no size to sweep"):
        sweep.points(function)


def test_figure_is_a_png(tmp_path):
    rows = [
        {
            "spes": spes,
            "size_bytes": size,
            "latency_ns": 100.0 + size * spes,
            "aggregate_bandwidth_gbps": size / (100.0 + size),
        }
        for spes in (1, 2)
        for size in (16, 32, 64)
    ]
    path = tmp_path / "figure.png"
    sweep_figure(rows, path, title="test", xlabel="size (bytes)")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

"""`cellblade report --quick`: one self-contained page that a real browser renders whole
(issue 23). The browser is Debian's Chromium, which `make browser` installs as root; where it
cannot be had the browser test is skipped and says why."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from conftest import run_cli

from cellblade import report_figures

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    done = run_cli("report", "--quick", "--out", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {path}\n"
    return path


def body_data(text: str) -> dict[str, str]:
    body = re.search(r"<body([^>]*)>", text).group(1)
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))


def test_the_page_needs_no_network(page):
    text = page.read_text()
    assert not re.search(r'(src|href)="(https?:)?//', text)
    assert "<link" not in text and "@import" not in text
    for section in ("calibration-table", "claims-table", 'id="machine"', "[eib]"):
        assert section in text
    expected = json.loads(body_data(text)["expected"].replace("&quot;", '"'))
    assert text.count('<tr class="claims-row">') == expected["claims"] > 0
    assert text.count('<img class="figure"') == expected["figures"] >= 13
    # The published points the figures overlay, read from the claims: a claim whose words
    # changed would drop its point silently.
    assert expected["published"] == {"barrier": 8, "pingpong": 4}


def test_the_guides_show_figures_the_report_draws(page):
    from test_docs import guide_figures

    drawn = set(re.findall(r'<figure id="([^"]+)"', page.read_text()))
    assert guide_figures() and guide_figures() <= drawn, guide_figures() - drawn


def test_no_simulated_value_of_the_report_is_copied_into_the_guides(page):
    """A value simulated for the page (its claims' and calibration rows' "simulated" cells)
    that is not also a published value appears in no hand-written page."""
    from test_docs import PAGES

    text = page.read_text()
    value = re.compile(r"\b\d[\d,]*\.\d+ (?:ns|us|ms|GB/s|Gflop/s)")
    simulated, published = set(), set()
    # claims: claim, source, published, simulated; calibration: name, published, source, simulated
    for table, row in re.findall(r'<tr class="(claims|calibration)-row">(.*?)</tr>', text):
        cells = re.findall(r"<td>(.*?)</td>", row)
        simulated |= set(value.findall(cells[3]))
        published |= set(value.findall(cells[2 if table == "claims" else 1]))
    # Bounds the guides derive by arithmetic, which a run may reach exactly: one XDR burst per
    # 8 bus cycles (25.6 GB/s), shared by 8 streams (3.2 GB/s).
    bounds = {"25.6 GB/s", "3.2 GB/s"}
    copied = {
        (p.name, v)
        for p in PAGES
        for v in simulated - published - bounds
        if re.search(rf"(?<![\d.]){re.escape(v)}", p.read_text())
    }
    assert simulated and copied == set(), copied


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: `make browser` installs it as root")
def test_chromium_renders_every_figure_and_claim_without_console_errors(page, tmp_path):
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert console == []
    data = body_data(done.stdout)
    expected = json.loads(data["expected"].replace("&quot;", '"'))
    # Written by the page's own check once loaded: it ran, and found every figure drawn.
    assert data["figures"] == data["drawn"] == str(expected["figures"]), data
    assert data["claim-rows"] == str(expected["claims"]), data
    assert 'id="check-failed"' not in done.stdout


def test_the_pingpong_panels_span_the_same_sizes(monkeypatch):
    """The throughput panel's published maxima once fixed its range on a linear axis, 5% of
    1 MB left of 0, which squeezed its curves into the right third."""
    drawn = []
    monkeypatch.setattr(report_figures, "_png", lambda figure: drawn.append(figure) or b"")
    rows = [
        {"bytes": s, "latency_us": 1 + s / 5000, "throughput_gbps": s / (1e3 + s / 6)}
        for s in (0, 64, 1024, 1 << 20)
    ]
    published = [
        {"curve": "memory", "value": 0.65, "unit": "us", "bytes": 0},
        {"curve": "memory", "value": 6.01, "unit": "GB/s", "bytes": None},
    ]
    report_figures.pingpong({"memory": rows}, published)
    latency, throughput = drawn[0].axes[:2]
    assert throughput.get_xlim() == pytest.approx(latency.get_xlim())
    assert -8 < throughput.get_xlim()[0] < 0


def test_a_tiny_negative_error_prints_as_plus_zero():
    from cellblade import results

    assert results.error_text({"kind": "value", "error": -0.00001}) == "+0.0%"
    assert results.error_text({"kind": "loss", "error": -0.0004}) == "+0.0 pt"
    # A loss reads in points with one decimal, whatever its size, and never as "-0.0".
    loss = {"kind": "loss", "published": -0.01235, "simulated": 0.0004678}
    assert results.value_text(loss, "published") == "-1.2 pt"
    assert results.value_text(loss, "simulated") == "0.0 pt"
    assert results.value_text({**loss, "simulated": -0.0004}, "simulated") == "0.0 pt"
    assert results.error_text({"kind": "value", "error": -0.031}) == "-3.1%"


def test_coinciding_curves_are_drawn_once_and_named_together():
    curves = {
        "a": [(1, 10.0), (2, 20.0)],
        "b": [(1, 10.000001), (2, 20.0)],
        "c": [(1, 11.0), (2, 20.0)],
    }
    assert list(report_figures.merge_coinciding(curves)) == ["a = b", "c"]


def test_thirteen_curves_have_thirteen_distinct_styles():
    styles = {tuple(sorted(report_figures.style(i).items())) for i in range(70)}
    assert len(styles) == 70


def drawn_figures(monkeypatch) -> list:
    """The figures report_figures draws, kept instead of rendered."""
    drawn: list = []
    monkeypatch.setattr(report_figures, "_png", lambda figure: drawn.append(figure) or b"")
    return drawn


def test_the_pingpong_published_maxima_are_named_in_the_legend_not_over_the_curves(monkeypatch):
    drawn = drawn_figures(monkeypatch)
    rows = [{"bytes": s, "latency_us": 1.0, "throughput_gbps": s / 1e5} for s in (0, 1 << 20)]
    published = [{"curve": "memory", "value": 6.01, "unit": "GB/s", "bytes": None}]
    report_figures.pingpong({"memory": rows}, published)
    throughput = drawn[0].axes[1]
    assert len(throughput.texts) == 0  # no label written at the line's height, over the data
    legend = [t.get_text() for t in throughput.get_legend().get_texts()]
    assert legend == ["memory", "published max 6.01 GB/s (memory)"]


def test_coinciding_published_points_are_labelled_once(monkeypatch):
    drawn = drawn_figures(monkeypatch)
    rows = [
        {"algorithm": f"barrier.{a}", "spes": s, "latency_ns": 100.0 * s + k}
        for k, a in enumerate(("rdb", "ota_signal"))
        for s in (2, 8)
    ]
    published = [
        {"algorithm": "barrier.rdb", "spes": 8, "ns": 225.0, "source": "seed 000 §4"},
        {"algorithm": "barrier.ota_signal", "spes": 8, "ns": 225.0, "source": "seed 000 §4"},
        {"algorithm": "barrier.rdb", "spes": 2, "ns": 100.0, "source": "seed 002 §5.2"},
    ]
    report_figures.barrier_vs_spes(rows, published)
    assert sorted(t.get_text() for t in drawn[0].axes[0].texts) == ["100", "225"]


def test_a_size_no_algorithm_ran_is_explained_under_the_collective_figure(monkeypatch):
    drawn = drawn_figures(monkeypatch)
    rows = [
        {"algorithm": f"allgather.{a}", "size_bytes": 64, "latency_ns": 2000.0 + k}
        for k, a in enumerate(("rdb", "bruck"))
    ] + [
        {"algorithm": f"allgather.{a}", "size_bytes": 16384, "error": f"allgather.{a}: too big"}
        for a in ("rdb", "bruck")
    ]
    report_figures.latency_vs_size(rows, "allgather", 16)
    figure = drawn[0]
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["64", "16K"]
    # One line for the size, not one per algorithm.
    assert figure._supxlabel.get_text() == "not run: every algorithm at 16 KiB: too big"
    rows[-1]["error"] = "allgather.bruck: another reason"
    assert report_figures.failed_cells(rows) == [
        ("rdb at 16 KiB", "too big"),
        ("bruck at 16 KiB", "another reason"),
    ]
    assert figure.axes[0].get_legend() is not None  # beside the axes, not over the curves


def test_placement_whiskers_run_from_the_lowest_trial_to_the_highest():
    rows = [
        {"min_bandwidth_gbps": 20.0, "trials": [14.0, 21.0, 25.0]},
        {"min_bandwidth_gbps": 24.5, "trials": []},
    ]
    assert report_figures.trial_whiskers(rows) == ([6.0, 0.0], [5.0, 0.0])


@pytest.mark.parametrize("figure", ["barrier", "pingpong"])
def test_the_published_legend_entry_is_a_white_cross_not_a_curves_colour(monkeypatch, figure):
    """Its entry took the first published point's colour, so it read as that curve's alone."""
    drawn = drawn_figures(monkeypatch)
    if figure == "barrier":
        rows = [
            {"algorithm": f"barrier.{a}", "spes": s, "latency_ns": 100.0 * s + k}
            for k, a in enumerate(("rdb", "ota_signal"))
            for s in (2, 8)
        ]
        published = [{"algorithm": "barrier.ota_signal", "spes": 8, "ns": 225.0, "source": "s"}]
        report_figures.barrier_vs_spes(rows, published)
    else:
        rows = [{"bytes": s, "latency_us": 1.0, "throughput_gbps": 1.0} for s in (0, 1024)]
        published = [{"curve": "memory", "value": 0.65, "unit": "us", "bytes": 0}]
        report_figures.pingpong({"ls": rows, "memory": rows}, published)
    axes = drawn[0].axes[0]
    handles, labels = axes.get_legend_handles_labels()
    (entry,) = [h for h, label in zip(handles, labels) if label.startswith("published")]
    assert entry.get_markerfacecolor() == "white"
    assert entry.get_marker() == "X" and entry.get_markeredgecolor() == "black"
    # The points themselves keep their curve's colour.
    curve = next(h for h, label in zip(handles, labels) if label in ("ota_signal", "memory"))
    point = next(line for line in axes.lines if line.get_xdata().tolist() in ([8], [0]))
    assert point.get_color() == curve.get_color() != "white"

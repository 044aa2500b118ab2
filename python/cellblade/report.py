"""`cellblade report`: the five papers' results on the simulated blade, as one web page.

`gather` runs everything the page shows (the calibration, the claims, the collectives at 8 and
16 SPEs, the barriers against the SPE count, the placements, the model against the blade, the
MPI ping-pong), its simulations side by side through `cellblade.parallel`; `html` writes the
page: one self-contained file (styles, figures as PNG data and a small self-check script all
inline, nothing fetched), readable offline. The tables are `cellblade.results`' rows, the same
as `cellblade calibrate` and `reproduce` print; the figures are `cellblade.report_figures`.
The page ends with the machine file it ran on and the build that ran it.
"""

from __future__ import annotations

import base64
import html as escape
import json
import re
from typing import Any

import cellblade
from cellblade import parallel, report_figures, results, splits

OPS = ("broadcast", "reduce", "allreduce", "allgather")
SPE_COUNTS = (8, 16)
BARRIER_SPES = (2, 4, 8, 16)
PATTERNS = {True: ("ring", "rd1"), False: ("ring", "rd1", "rd2", "rd3", "bruck2", "binomial3")}
SIZES = {True: [64, 1024, 16384], False: [2**k for k in range(4, 16)]}
PINGPONG_SIZES = [0, 64, 1024, 16384, 65536, 262144, 1048576]
# Which algorithm and SPE count each barrier claim with a published time is about: the
# claims name it in words (crates/cellblade/src/reproduce.rs); the values are the claims'.
BARRIER_CLAIMS = (
    (r"^(barrier\.\w+) (?:\([^)]*\) )?on (\d+) SPEs takes (?:about )?\d", None),
    (r"^centralized atomic-increment barrier, (\d+) SPEs", "barrier.atomic"),
    (r"^signal barrier, (\d+) SPEs, one root", "barrier.ota_signal"),
    (r"^signal barrier, (\d+) SPEs, a root per chip", "barrier.two_root_signal"),
)
# Seed 004 §5.1's ping-pong claims (crates/cellblade/src/mpi/claims.rs) and the curve each is
# about, by a phrase of the claim.
PINGPONG_CLAIMS = (
    ("0-byte latency", "memory (seed default)"),
    ("main memory", "memory (seed default)"),
    ("exchanging pairs", "memory, congested"),
    ("local store", "local store"),
)
PUBLISHED_VALUE = re.compile(r"^(?:about )?([0-9.]+) (ns|us|GB/s)$")


def published_barriers(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The barrier latencies the seeds publish, read from the claims that check them:
    {"algorithm", "spes", "ns", "source"}."""
    points = []
    for c in claims:
        value = PUBLISHED_VALUE.match(c["published"])
        for pattern, algorithm in BARRIER_CLAIMS:
            found = re.match(pattern, c["claim"])
            if found and value:
                scale = 1000.0 if value.group(2) == "us" else 1.0
                points.append(
                    {
                        "algorithm": algorithm or found.group(1),
                        "spes": int(found.group(found.lastindex)),
                        "ns": float(value.group(1)) * scale,
                        "source": c["source"],
                    }
                )
    return points


def published_pingpong(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seed 004 §5.1's published ping-pong figures, read from the claims that check them:
    {"curve", "value", "unit", "bytes"} (bytes 0 for the latency; a throughput is a maximum
    over sizes, so it has none)."""
    points = []
    for c in claims:
        value = PUBLISHED_VALUE.match(c["published"])
        if not (c["source"].startswith("seed 004 §5.1") and value):
            continue
        for phrase, curve in PINGPONG_CLAIMS:
            if phrase in c["claim"]:
                unit = value.group(2)
                points.append(
                    {"curve": curve, "value": float(value.group(1)), "unit": unit, "bytes": 0}
                )
                break
    return points


def gather(
    quick: bool, machine: dict[str, Any], where: dict[str, Any], say=lambda stage: None
) -> dict[str, Any]:
    """Every number the page shows. `machine` is ``{"machine", "overrides"}``, `where` how to
    run (`parallel.run`'s jobs, scheduler, progress); `say(stage)` is told each stage's name."""
    say("calibrating")
    data: dict[str, Any] = {"quick": quick, "build": cellblade.CATALOG["build"]}
    data["calibration"] = cellblade.calibrate(**machine)
    say("reproducing the claims")
    data["claims"] = splits.claims(quick, machine, where)
    say("collectives")
    data["barrier"] = [
        row
        for n in BARRIER_SPES
        for row in splits.coll_cells(_coll("barrier", n, [], machine), where)
    ]
    data["collectives"] = {
        f"{op} {n}": splits.coll_cells(_coll(op, n, SIZES[quick], machine), where)
        for op in OPS
        for n in SPE_COUNTS
    }
    say("placements")
    calls = [
        parallel.Call(
            "affinity_run",
            dict(pattern=p, placements="all", trials=2 if quick else 8, **machine),
            label=p,
        )
        for p in PATTERNS[quick]
    ]
    runs = _all(parallel.run(calls, desc="report: placements", **where))
    data["affinity"] = dict(zip(PATTERNS[quick], runs))
    say("the model against the blade")
    data["model"] = _model_rows(quick, machine, where)
    say("MPI ping-pong")
    data["pingpong"] = _pingpong(machine)
    data["machine_toml"] = cellblade.resolved_machine(**machine)
    return data


def _coll(op: str, spes: int, sizes: list[int], machine: dict[str, Any]) -> dict[str, Any]:
    """A `splits.coll_cells` request: every algorithm of `op` that takes `spes`, one call per
    cell, so a size that does not fit one algorithm's buffers leaves only that cell out."""
    return dict(
        op=op,
        spes=spes,
        sizes=sizes,
        algorithms="all",
        root=None,
        placement=None,
        dtype=None,
        reduce_op=None,
        iterations=None,
        **machine,
    )


def _all(answers: list[Any]) -> list[Any]:
    failed = [a for a in answers if isinstance(a, parallel.Failed)]
    if failed:
        raise failed[0].error()
    return answers


def _model_rows(quick: bool, machine: dict[str, Any], where: dict[str, Any]) -> list[dict]:
    from cellblade import model

    params = model.params_for(machine["machine"], machine["overrides"])
    ops = ("allreduce",) if quick else OPS
    sizes = [1024] if quick else [256, 4096, 32768]
    spes = (8,) if quick else SPE_COUNTS
    # An all-gather's result is SPEs x size: 32 KB on 8 SPEs no longer fits a local store.
    fits = {"allgather": [256, 4096, 8192]}
    calls = [
        parallel.Call(
            "model.predict",
            dict(
                op=op,
                params_toml=params,
                spes=n,
                sizes=sizes if quick else fits.get(op, sizes),
                simulate=True,
                **machine,
            ),
            label=f"{op} {n}",
        )
        for op in ops
        for n in spes
    ]
    answers = _all(parallel.run(calls, desc="report: model", **where))
    return [row for answer in answers for row in answer["rows"]]


def _pingpong(machine: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    from cellblade import ProgramError, _core
    from cellblade.machine import choice

    chosen = choice(machine["machine"], machine["overrides"])
    curves = {}
    for label, request in (
        ("memory (seed default)", {"mode": "memory"}),
        ("memory, congested", {"mode": "memory", "congested": True}),
    ):
        curves[label] = _core.mpi_pingpong({**request, "sizes": PINGPONG_SIZES}, chosen)["result"]
    ls = []
    for size in PINGPONG_SIZES:  # the local-store curve stops where two buffers no longer fit
        try:
            ls += _core.mpi_pingpong({"mode": "ls", "sizes": [size]}, chosen)["result"]
        except ProgramError:
            break
    curves["local store"] = ls
    return curves


def figures(data: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    """(id, caption, PNG) of every figure of the page, in its order."""
    out = [
        (
            "barrier",
            "Barrier latency against the SPE count, every algorithm; crosses: the latencies "
            "seeds 000 §4 and 002 §5.2 publish, on their algorithm's curve.",
            report_figures.barrier_vs_spes(data["barrier"], published_barriers(data["claims"])),
        ),
    ]
    for label, rows in data["collectives"].items():
        op, spes = label.split()
        out.append(
            (
                f"coll-{op}-{spes}",
                f"{op} latency against message size on {spes} SPEs (seed 000 figures 10-14 "
                "publish curves, and its text only ratios between them: no points to overlay).",
                report_figures.latency_vs_size(rows, op, int(spes)),
            )
        )
    out += [
        (
            "table1",
            "Seed 001 Table 1: bandwidth lost to contention, published and simulated.",
            report_figures.table1(data["calibration"]),
        ),
        (
            "affinity",
            "The slowest SPE's bandwidth under each placement, the mean over trials; the "
            "whiskers run from the lowest to the highest trial.",
            report_figures.affinity_bars(data["affinity"]),
        ),
        (
            "model",
            "The model's error against the simulated blade.",
            report_figures.model_error(data["model"]),
        ),
        (
            "pingpong",
            "MPI ping-pong latency and throughput; the published 0-byte latency is a cross, "
            "each published maximum throughput a dashed line in its curve's colour.",
            report_figures.pingpong(data["pingpong"], published_pingpong(data["claims"])),
        ),
    ]
    return out


def html(data: dict[str, Any]) -> str:
    """The page, one self-contained HTML document."""
    drawn = figures(data)
    calibration = _table(
        results.CALIBRATION_HEADER, results.calibration_rows(data["calibration"]), "calibration"
    )
    claims = _table(results.CLAIMS_HEADER, results.claim_rows(data["claims"]), "claims")
    body = [
        "<h1>cellblade: the papers' results on the simulated IBM dual-Cell blade</h1>",
        f"<p>{'Quick form' if data['quick'] else 'Full form'} of <code>cellblade report</code>. "
        "Every number below was simulated for this page; published values are the papers'.</p>",
        '<nav><a href="#calibration">Calibration</a> · <a href="#claims">Claims</a> · '
        '<a href="#figures">Figures</a> · <a href="#machine">Machine and build</a></nav>',
        '<h2 id="calibration">Calibration</h2>',
        f"<p>{escape.escape(results.calibration_summary(data['calibration']))}.</p>",
        calibration,
        '<h2 id="claims">Claims</h2>',
        f"<p>{escape.escape(results.claims_summary(data['claims']))}.</p>",
        claims,
        '<h2 id="figures">Figures</h2>',
        *(
            f'<figure id="{name}"><img class="figure" alt="{escape.escape(caption)}" '
            f'src="data:image/png;base64,{base64.b64encode(png).decode()}">'
            f"<figcaption>{escape.escape(caption)}</figcaption></figure>"
            for name, caption, png in drawn
        ),
        '<h2 id="machine">Machine and build</h2>',
        f"<p>Core build: <code>{escape.escape(data['build'])}</code>.</p>",
        f"<pre>{escape.escape(data['machine_toml'])}</pre>",
    ]
    counts = {
        "claims": len(data["claims"]),
        "figures": len(drawn),
        "published": {
            "barrier": len(published_barriers(data["claims"])),
            "pingpong": len(published_pingpong(data["claims"])),
        },
    }
    return PAGE.format(body="\n".join(body), counts=escape.escape(json.dumps(counts)))


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], name: str) -> str:
    head = "".join(f"<th>{escape.escape(h)}</th>" for h in header)
    lines = [
        f'<tr class="{name}-row">' + "".join(f"<td>{escape.escape(c)}</td>" for c in row) + "</tr>"
        for row in rows
    ]
    return f'<table id="{name}-table"><thead><tr>{head}</tr></thead><tbody>{"".join(lines)}</tbody></table>'


# The self-check runs once the page has loaded: each figure must have decoded and have pixels
# that are not background; it writes what it found into <body data-...> for a headless browser
# to read (tests/test_report.py), and shows a line at the top when something is wrong.
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cellblade report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; }}
table {{ border-collapse: collapse; font-size: 0.8em; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.4em; vertical-align: top; }}
th {{ background: #eee; }}
figure {{ margin: 2em 0; }} img.figure {{ max-width: 100%; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.8em; }}
#check-failed {{ color: #b00; font-weight: bold; }}
</style></head>
<body data-expected="{counts}">
{body}
<script>
window.addEventListener("load", function () {{
  var images = document.querySelectorAll("img.figure"), drawn = 0;
  images.forEach(function (img) {{
    if (!img.complete || img.naturalWidth === 0) return;
    var canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    var context = canvas.getContext("2d");
    context.drawImage(img, 0, 0);
    var pixels = context.getImageData(0, 0, canvas.width, canvas.height).data, ink = 0;
    for (var i = 0; i < pixels.length; i += 4 * 7) {{
      if (pixels[i] < 200 || pixels[i + 1] < 200 || pixels[i + 2] < 200) ink++;
    }}
    if (ink > 500) {{ drawn++; img.dataset.rendered = "yes"; }}
  }});
  var rows = document.querySelectorAll("tr.claims-row").length;
  document.body.dataset.figures = images.length;
  document.body.dataset.drawn = drawn;
  document.body.dataset.claimRows = rows;
  if (drawn !== images.length) {{
    var note = document.createElement("p");
    note.id = "check-failed";
    note.textContent = (images.length - drawn) + " figure(s) did not render";
    document.body.insertBefore(note, document.body.firstChild);
  }}
}});
</script>
</body></html>
"""

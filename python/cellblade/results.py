"""The calibration table and the claims as rows of text, written once for every reader.

`cellblade calibrate`, `cellblade reproduce`, the documentation's results pages and
`cellblade report` all show the same rows; they take them from here, so a column or a count
is computed in one place. The input is what `cellblade.calibrate()` and
`cellblade.reproduce()` return.
"""

from __future__ import annotations

from typing import Any

from cellblade.units import format_number

CALIBRATION_HEADER = ("name", "published", "source", "simulated", "error", "kind", "holds", "note")
CLAIMS_HEADER = ("claim", "source", "published", "simulated", "holds", "note")
LEAVE_ONE_OUT_HEADER = (
    "parameter",
    "fitted on",
    "refit on",
    "value",
    "row",
    "published",
    "simulated",
    "refit",
    "holds",
)
PARAMETERS_HEADER = ("parameter", "value", "unit", "from", "what")


def holds(point: dict[str, Any]) -> bool:
    """Whether a calibration row or a claim holds."""
    return bool(point["holds"])


def discriminating(point: dict[str, Any]) -> bool:
    """A prediction that holds and that the blade without contention (`eib.contention =
    false`) fails: the evidence that can tell the contention model from none."""
    return bool(point["holds"]) and not point["fitted"] and point.get("without_contention") is False


def _percent(fraction: float) -> float:
    """A fraction in percent (or points) to one decimal; rounded first, then + 0.0, so that a
    tiny negative value prints as 0.0, never -0.0."""
    return round(100 * fraction, 1) + 0.0


def error_text(point: dict[str, Any]) -> str:
    """A row's error: percent for values and bounds, points for Table 1's losses."""
    shown = _percent(point["error"])
    return f"{shown:+.1f} pt" if point["kind"] == "loss" else f"{shown:+.1f}%"


def value_text(point: dict[str, Any], key: str) -> str:
    """A published or simulated value with its unit; Table 1's losses in points with one
    decimal, as the error column gives them (the seed's bandwidths have three digits, so a
    finer loss would be noise)."""
    if point["kind"] == "loss":
        return f"{_percent(point[key]):.1f} pt"
    bound = "< " if point["kind"] == "upper_bound" and key == "published" else ""
    return f"{bound}{format_number(point[key])} {point['unit']}"


def calibration_rows(points: list[dict[str, Any]], check: str = "✓") -> list[tuple[str, ...]]:
    """One tuple of cells per calibration row, in CALIBRATION_HEADER's order."""
    return [
        (
            p["name"],
            value_text(p, "published"),
            p["source"],
            value_text(p, "simulated"),
            error_text(p),
            ("fitted" if p["fitted"] else "prediction")
            + (", discriminating" if discriminating(p) else "")
            + (f" (same as: {p['same_as']})" if p["same_as"] else ""),
            check if p["holds"] else "no",
            p["note"],
        )
        for p in points
    ]


def calibration_summary(points: list[dict[str, Any]]) -> str:
    """The counts under the table; a row measuring what another row measures counts once."""
    distinct = [p for p in points if not p["same_as"]]
    fitted = [p for p in distinct if p["fitted"]]
    predicted = [p for p in distinct if not p["fitted"]]
    redrawn = sum(bool(p.get("depends_on_draws")) for p in predicted)
    return (
        f"{len(distinct)} distinct rows ({len(points)} shown), {sum(map(holds, distinct))} hold "
        "(values within 10%, under a published bound, or losses within 2.5 points): "
        f"fitted {sum(map(holds, fitted))}/{len(fitted)}, "
        f"predictions {sum(map(holds, predicted))}/{len(predicted)}, "
        f"of which {sum(map(discriminating, predicted))} discriminating "
        "(a blade without contention fails them)"
        + (f"; {redrawn} held under some of the arbiter's draw seeds only" if redrawn else "")
    )


def claim_rows(claims: list[dict[str, Any]], check: str = "✓") -> list[tuple[str, ...]]:
    """One tuple of cells per claim, in CLAIMS_HEADER's order."""
    return [
        (
            c["claim"],
            c["source"],
            c["published"],
            c["simulated"],
            (check + (" fitted" if c["fitted"] else "*" if discriminating(c) else ""))
            if c["holds"]
            else c["status"].replace("does not hold", "no"),
            c["note"],
        )
        for c in claims
    ]


def claims_summary(claims: list[dict[str, Any]]) -> str:
    """The counts under the claims: only claims that hold or do not are counted."""
    counted = [c for c in claims if c["status"] in ("holds", "does not hold")]
    predicted = [c for c in counted if not c["fitted"]]
    redrawn = sum(bool(c.get("depends_on_draws")) for c in predicted)
    skipped = sum(c["status"] == "skipped" for c in claims)
    return (
        f"{len(predicted)} predictions counted, {sum(map(holds, predicted))} hold, "
        f"{sum(map(discriminating, predicted))} of them discriminating "
        "(* : a blade without contention fails them); "
        f"{len(counted) - len(predicted)} fitted, "
        f"{len(claims) - len(counted) - skipped} not counted (not modelled or unverified)"
        + (f"; {skipped} skipped by --quick (checked without it)" if skipped else "")
        + (f"; {redrawn} held under some of the arbiter's draw seeds only" if redrawn else "")
    )


def markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A Markdown table; a `|` inside a cell is escaped."""

    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *map(line, rows)])


def leave_one_out_rows(refits: list[dict[str, Any]], check: str = "✓") -> list[tuple[str, ...]]:
    """One tuple per row of each refit's group, in LEAVE_ONE_OUT_HEADER's order: the machine
    file's value and the refit one, the row simulated with each, and whether the refit holds."""
    out = []
    for r in refits:
        refit = "none in range" if r["refit_value"] is None else format_number(r["refit_value"])
        for i, row in enumerate(r["rows"]):
            first = i == 0
            unit = f" {row['unit']}"
            again = row["refit_simulated"]
            out.append(
                (
                    r["parameter"] if first else "",
                    r["fitted_on"] if first else "",
                    r["refit_on"] if first else "",
                    f"{format_number(r['value'])} -> {refit}" if first else "",
                    row["name"] + (" (refit on)" if row["name"] == r["refit_on"] else ""),
                    format_number(row["published"]) + unit,
                    format_number(row["simulated"]) + unit,
                    "-" if again is None else format_number(again) + unit,
                    "-" if row["refit_holds"] is None else (check if row["refit_holds"] else "no"),
                )
            )
    return out


def leave_one_out_summary(refits: list[dict[str, Any]]) -> str:
    """How many refits keep every other row of their group holding."""
    kept = [
        r
        for r in refits
        if r["refit_value"] is not None
        and all(row["refit_holds"] for row in r["rows"] if row["name"] != r["refit_on"])
    ]
    params = len({r["parameter"] for r in refits})
    return (
        f"{len(refits)} refit{'s' * (len(refits) != 1)} of {params} fitted "
        f"parameter{'s' * (params != 1)}; in {len(kept)} every other row of "
        "the group still holds with the refit value"
    )


def leave_one_out_verdicts(refits: list[dict[str, Any]]) -> list[str]:
    """One sentence per refit: which other rows of its group hold with the refit value and
    which do not (the verdicts of the table, in words, so no guide types them)."""

    def listed(names: list[str]) -> str:
        quoted = [f"'{n}'" for n in names]
        return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]

    out = []
    for r in refits:
        start = f"{r['parameter']} refit on '{r['refit_on']}'"
        if r["refit_value"] is None:
            low, high = (format_number(v) for v in r["searched"])
            out.append(f"{start}: no value from {low} to {high} meets that row.")
            continue
        others = [row for row in r["rows"] if row["name"] != r["refit_on"]]
        held = [row["name"] for row in others if row["refit_holds"]]
        failed = [row["name"] for row in others if not row["refit_holds"]]
        value = f"{format_number(r['value'])} -> {format_number(r['refit_value'])}"
        if not failed:
            verdict = "every other row of the group holds"
        elif not held:
            verdict = "no other row of the group holds"
        else:
            verdict = f"{listed(held)} {'holds' if len(held) == 1 else 'hold'}; "
            verdict += f"{listed(failed)} {'does' if len(failed) == 1 else 'do'} not"
        out.append(f"{start} ({value}): {verdict}.")
    return out


def parameter_value(value: Any) -> str:
    """A machine-file value as `--set` takes it: a list joined by spaces, booleans lower-case,
    whole floats without their ".0"."""
    if isinstance(value, list):
        return " ".join(map(str, value))
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parameter_source(parameter: dict[str, Any]) -> str:
    """Where a parameter's value comes from: the citation, the row it was fitted on, or the
    user (an override), with where the machine file's own value comes from."""
    if parameter["origin"] == "set":
        mine = parameter["file"]
        return f"set by the user (the machine file's {parameter_value(mine['value'])}: {parameter_source(mine)})"
    if parameter["origin"] == "fitted":
        return f"fitted on the row '{parameter['source']}'"
    return f"{parameter['origin']}: {parameter['source']}"


def parameter_rows(
    parameters: list[dict[str, Any]], others: dict[str, list[dict[str, Any]]] | None = None
) -> list[tuple[str, ...]]:
    """One tuple of cells per machine-file key (`cellblade.machine.parameters()`), in
    PARAMETERS_HEADER's order; `others` adds the values of other machines where they differ."""
    rows = []
    for i, p in enumerate(parameters):
        value = parameter_value(p["value"])
        for name, theirs in (others or {}).items():
            if theirs[i]["value"] != p["value"]:
                value += f" ({name}: {parameter_value(theirs[i]['value'])})"
        rows.append((p["key"], value, p["unit"], parameter_source(p), p["what"]))
    return rows


# `cellblade calibrate --policies`: the arbiter's policy family, fitted and judged.
POLICIES_HEADER = (
    "policy (half-way / grant order / limit)",
    "fitted",
    "training",
    "#6",
    "#7",
    "#9",
    "#10",
    "#11a",
    "#11b",
    "claims",
    "held out",
)

_POLICY_GROUPS = ("#6:", "#7:", "#9:", "#10:", "#11a:", "#11b:")


def _short_key(key: str) -> str:
    return {
        "eib.blind_share": "share",
        "eib.ring_start_interval_bus_cycles": "ring",
        "eib.direction_interval_bus_cycles": "dir",
    }.get(key, key)


def policies_rows(identification: dict[str, Any]) -> list[tuple[str, ...]]:
    """One tuple per policy in POLICIES_HEADER's order: its fitted values (a `?` where no value
    in range meets the row), the in-sample training rows holding, each held-out Table 1
    pattern's rows holding, the held-out claims holding, and the total; the machine file's
    policy is marked `(file)`, the best held out `(best)`."""
    out = []
    for i, p in enumerate(identification["policies"]):
        marks = [m for m, k in (("file", "machine"), ("best", "best")) if identification[k] == i]
        fitted = ", ".join(
            f"{_short_key(f['key'])} {format_number(f['value'])}{'' if f['reached'] else '?'}"
            for f in p["fitted"]
        )

        def held(rows: list[dict[str, Any]]) -> str:
            return f"{sum(r['holds'] for r in rows)}/{len(rows)}"

        groups = [held([r for r in p["table1"] if g in r["name"]]) for g in _POLICY_GROUPS]
        claims = held(p["claims"]) + ("" if p["second_stage"] or not p["claims"] else " (barriers)")
        out.append(
            (
                p["label"] + (f" ({', '.join(marks)})" if marks else ""),
                fitted,
                held(p["training"]),
                *groups,
                claims if p["claims"] else "-",
                f"{p['held_out_holding']}/{p['held_out_total']}",
            )
        )
    return out


def policies_summary(identification: dict[str, Any]) -> str:
    """Which policy holds the most held-out rows, against the machine file's, and whether any
    gives Table 1 #9, #10 and #11 together (and if none, which of those rows every policy
    misses)."""
    policies = identification["policies"]
    best, machine = policies[identification["best"]], policies[identification["machine"]]
    together = [p["label"] for p in policies if p["gives_9_10_11"]]
    text = (
        f"{len(policies)} policies fitted on {', '.join(identification['training'])} and judged on "
        f"{identification['held_out']}. Most held out holding: {best['label']}, "
        f"{best['held_out_holding']} of {best['held_out_total']}; the machine file's "
        f"{machine['label']}: {machine['held_out_holding']} of {machine['held_out_total']}."
    )
    if together:
        return text + f" Table 1 #9, #10 and #11 all hold under: {'; '.join(together)}."
    rows = [
        r["name"] for r in policies[0]["table1"] if any(g in r["name"] for g in _POLICY_GROUPS[2:])
    ]
    never = [
        n
        for n in rows
        if not any(r["holds"] for p in policies for r in p["table1"] if r["name"] == n)
    ]
    return (
        text
        + " No policy of the family gives Table 1 #9, #10 and #11 together"
        + (f"; no policy holds {', '.join(never)}" if never else "")
        + "."
    )

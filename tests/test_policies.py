"""`cellblade calibrate --policies`' table and summary, on a hand-made identification (the
identification itself is tested in the core: `calibrate::policies`)."""

from __future__ import annotations

from cellblade import results


def _policy(label: str, holds: list[bool], fitted_reached: bool = True) -> dict:
    names = ["Table 1 #9: 5 <- 4, loss", "Table 1 #10: 1 <- 6, loss", "Table 1 #11a: 3 <- 4, loss"]
    return {
        "label": label,
        "fitted": [{"key": "eib.blind_share", "row": "r", "value": 0.5, "reached": fitted_reached}],
        "training": [{"name": "Table 1 #3: 2 <- 0, loss", "holds": True}],
        "table1": [{"name": n, "holds": h} for n, h in zip(names, holds)],
        "claims": [],
        "second_stage": False,
        "held_out_holding": sum(holds),
        "held_out_total": len(holds),
        "gives_9_10_11": False,
    }


def test_the_table_marks_the_files_policy_and_the_best_and_counts_each_pattern():
    ident = {
        "policies": [
            _policy("a / b / c", [False, False, True]),
            _policy("d / e / f", [True, False, True], False),
        ],
        "best": 1,
        "machine": 0,
        "training": ["Table 1 #1"],
        "held_out": "the rest",
    }
    rows = results.policies_rows(ident)
    assert rows[0][0] == "a / b / c (file)"
    assert rows[1][0] == "d / e / f (best)"
    assert rows[1][1] == "share 0.5?"  # no value in range met the row
    assert rows[1][results.POLICIES_HEADER.index("#9")] == "1/1"
    assert rows[0][results.POLICIES_HEADER.index("#9")] == "0/1"
    assert rows[1][-1] == "2/3"
    summary = results.policies_summary(ident)
    assert "No policy of the family gives Table 1 #9, #10 and #11 together" in summary
    assert "no policy holds Table 1 #10: 1 <- 6, loss" in summary

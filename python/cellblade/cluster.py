"""Clusters of blades (seed 003 section 6.1) from Python: the hierarchical barrier and
broadcast on up to four blades in one simulation, with the section 6.1 model beside them::

    from cellblade import cluster, model
    rows = cluster.run("barrier", blades=4)                    # 64 SPEs
    rows = cluster.run("broadcast", blades=2, sizes=[1024], params_toml=model.params_for())

and the `cellblade cluster barrier|broadcast --blades B` command (cellblade.cli.cluster).
"""

from __future__ import annotations

from typing import Any

import cellblade
from cellblade import _core
from cellblade.machine import choice

CLUSTER = _core.catalog()["cluster"]
OPS = ("barrier", "broadcast")


def run(
    op: str,
    blades: int | None = None,
    spes: int | None = None,
    sizes: list[int] | None = None,
    params_toml: str | None = None,
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
) -> list[dict[str, Any]]:
    """Runs `op` on `blades` blades of `spes` SPEs each (the core's defaults when None); with
    `params_toml` (``model.params_for()``) each row also has the model's ``predicted_ns``,
    ``error_pct`` and its ``terms``."""
    request = {"op": op, "blades": blades, "spes": spes, "sizes": sizes, "params_toml": params_toml}
    fields = {key: value for key, value in request.items() if value is not None}
    return _core.cluster_run(fields, choice(machine, overrides))["result"]

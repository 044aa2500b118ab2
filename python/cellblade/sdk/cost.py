"""What an SPE program's own code costs: `cellblade run --compute model|zero`.

Under ``model`` (the default) the simulator runs each SPE process under qemu-user with the SPU
cost plugin (``sdk/cost/``), which counts the SPU cycles of the code the program executes; the
simulator charges them to the SPE's simulated clock at each of its requests
(crates/cellblade/src/sdk/cost.rs). This module only builds the plugin, with the host's C
compiler, into the shared build cache (c_library), once per source version; the cost table is
the machine file's ``[spu_cost]``, which the simulator passes to it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cellblade import c_library
from cellblade.sdk import toolchain

# The plugin and its decoder; the kernels beside them are the tests'.
PLUGIN_FILES = (
    "cost/spu_cost_plugin.c",
    "cost/spu_cost.c",
    "cost/spu_cost.h",
    "cost/qemu_plugin_api.h",
)
HOST_CC = "gcc"


def plugin() -> Path:
    """The cost plugin's shared object, built on first use."""
    if shutil.which(HOST_CC) is None:
        raise toolchain.ToolError(
            f"{HOST_CC} (the host's C compiler) is not installed: it builds the SPU cost plugin "
            "that `--compute model` needs; install it, or run with `--compute zero`"
        )
    return c_library.shared_object(
        "the SPU cost plugin",
        toolchain.sdk_root(),
        PLUGIN_FILES,
        [HOST_CC, "-O2", "-Wall", "-fPIC", "-fvisibility=hidden"],
        "spu_cost_plugin.so",
    )


def plugin_args(table: dict[str, list[int]]) -> str:
    """A machine file's ``[spu_cost]`` table as the plugin's arguments, as the simulator passes
    them (sdk/cost.rs's ``plugin_args``): ``CLASS=EVEN:ODD:STALL:LATENCY,...``."""
    return ",".join(f"{name}={':'.join(map(str, cycles))}" for name, cycles in table.items())

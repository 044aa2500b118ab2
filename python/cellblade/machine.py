"""The machine choice a caller gives (a preset name or the path of a machine file, and
overrides), as the core takes it: ``{"preset": NAME}`` or ``{"toml": TEXT}`` with ``"set"``.
Which one wins and what the default is are the core's to decide."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Union

from cellblade._core import ConfigError

Machine = Union[str, os.PathLike]
# The CLI flag of each field of the machine choice, for the commands' field -> flag tables.
MACHINE_FLAGS = {"machine": "--machine", "preset": "--preset", "set": "--set"}
Overrides = Union[Mapping[str, Any], Iterable[str]]


def choice(machine: Machine | None, overrides: Overrides = ()) -> dict[str, Any]:
    """A preset name, or the text of the machine file at a path (a ``PathLike`` or a string
    ending in ".toml"), with the overrides as ``key=value`` strings."""
    if isinstance(machine, os.PathLike) or str(machine).endswith(".toml"):
        chosen: dict[str, Any] = {"toml": read_text(machine, "machine")}
    else:
        chosen = {"preset": machine}
    return {**chosen, "set": override_list(overrides)}


def override_list(overrides: Overrides) -> list[str]:
    """``{"key": value}``, ``["key=value"]`` or one ``"key=value"`` as a list of strings."""
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{key}={value}" for key, value in overrides.items()]
    return list(overrides)


def read_text(path: str | os.PathLike | None, field: str) -> str | None:
    """The text of the file at `path` (argument `field`), or ConfigError saying why not."""
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        reason = error.strerror or str(error)
    except UnicodeDecodeError as error:
        reason = f"not UTF-8 text (byte {error.start})"
    raise field_error(field, f"{field} {os.fspath(path)} cannot be read: {reason}")


def field_error(field: str, message: str) -> ConfigError:
    """A ConfigError about argument `field`; `message` begins with its name."""
    error = ConfigError(message)
    error.field = field
    return error


def parameters(machine: Machine | None = None, overrides: Overrides = ()) -> list[dict[str, Any]]:
    """Every machine-file key of the machine a run with these arguments uses: its ``value``
    (overrides applied), ``unit``, ``what`` it is, its ``origin`` (published, fitted, setting,
    unpublished, assumed) and ``source`` (the citation, or the calibration row it was fitted
    on), as the core declares them (``machine/parameters.rs``). A key the overrides set has
    ``origin`` "set" and ``source`` "set by the user", and under ``"file"`` the machine file's
    own value, origin and source."""
    from cellblade import _core

    declared = _core.catalog()["machine_parameters"]
    chosen = choice(machine, overrides)
    values = _values(chosen)
    named = {override.split("=", 1)[0].strip() for override in chosen["set"]}
    if not named:
        return [{**p, "value": values[p["key"]]} for p in declared]
    own = _values({**chosen, "set": []})
    return [
        {**p, "value": values[p["key"]]}
        if p["key"] not in named
        else {
            **p,
            "value": values[p["key"]],
            "origin": "set",
            "source": "set by the user",
            "file": {"value": own[p["key"]], "origin": p["origin"], "source": p["source"]},
        }
        for p in declared
    ]


def _values(chosen: dict[str, Any]) -> dict[str, Any]:
    """``{"section.key": value}`` of the machine the core resolves from a choice (the file's
    top-level values, such as its name, are no parameters)."""
    import tomllib

    from cellblade import _core

    resolved = tomllib.loads(_core.resolved_machine(chosen))
    return {
        f"{section}.{key}": value
        for section, table in resolved.items()
        if isinstance(table, dict)
        for key, value in table.items()
    }


def machine_file(machine: Machine | None = None, overrides: Overrides = ()) -> str:
    """The machine file a run with these arguments uses, as TOML a user can copy, edit and
    pass back with ``--machine``: the resolved values (overrides applied), each key followed
    by a comment with its unit and where its value comes from (`parameters`), so a copy made
    from an installed package carries the sources a preset's file does."""
    from cellblade import _core
    from cellblade.results import parameter_source

    chosen = choice(machine, overrides)
    notes = {
        p["key"]: f"{p['unit']}; {parameter_source(p)}" for p in parameters(machine, overrides)
    }
    section, lines = "", []
    for line in _core.resolved_machine(chosen).splitlines():
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        key = line.split(" = ", 1)[0] if " = " in line and not line.startswith(" ") else None
        note = notes.get(f"{section}.{key}") if key else None
        lines.append(f"{line}  # {note}" if note else line)
    return "\n".join(lines) + "\n"

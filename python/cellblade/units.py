"""Numbers with CellStats' multipliers, parsed at the command-line edge into exact integers.

CellStats (seed 002, section 3.1) accepts ``k`` and ``m`` after numeric flags. Its examples fix
their meaning: ``-i 1m`` is one million iterations and ``-w 1k`` a thousand warm-up iterations,
while ``-b 1k`` is a 1024-byte buffer and ``-t 2k`` a 2048-byte stride. So:

- sizes (bytes: ``-b``, ``-t``): k = 1024, m = 1024**2;
- counts (``-i``, ``-w``, ``-l``): k = 1000, m = 1000**2.

Either case is accepted ("16K" == "16k"). ``format_size`` writes sizes back for titles, and
``format_time`` writes every time a command prints, with one number of decimals per unit.
"""

from __future__ import annotations

import math
import re

SIZE_MULTIPLIERS = {"": 1, "k": 1024, "m": 1024**2}
COUNT_MULTIPLIERS = {"": 1, "k": 1000, "m": 1000**2}


def parse_size(text: str) -> int:
    """Bytes: "16k" -> 16384, "1m" -> 1048576, "128" -> 128."""
    return _parse(text, SIZE_MULTIPLIERS, "a size in bytes such as 128, 16k or 1m (k=1024)")


def parse_count(text: str) -> int:
    """A count: "1m" -> 1000000, "1k" -> 1000, "100" -> 100."""
    return _parse(text, COUNT_MULTIPLIERS, "a count such as 100, 10k or 1m (k=1000)")


_NUMBER = re.compile(r"([0-9]+)([km]?)", re.IGNORECASE)


def _parse(text: str, multipliers: dict[str, int], allowed: str) -> int:
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"invalid value {text!r}: expected {allowed}")
    return int(match[1]) * multipliers[match[2].lower()]


def format_number(value: float) -> str:
    """One format for a measured value, whatever its size: thousands grouped, never an
    exponent, four significant digits below 1,000 ("1,680,000", "589.9", "3.2", "0.1234")."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude == 0:
        return "0"
    decimals = 3 - math.floor(math.log10(magnitude))
    text = f"{value:.{max(decimals, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_size(size: int) -> str:
    """Bytes for a reader: 65536 -> "64 KiB", 1048576 -> "1 MiB", 100 -> "100 B"."""
    for unit, factor in (("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


# One rule for times, whatever the command: a unit always has the same decimals, so that the
# same latency reads the same in cellstats, coll, cluster and pingpong. ns keep the tenth the
# simulator resolves; us keep 10 ns, finer than any claim the seeds make in us; s (wall times)
# keep the ms a short run takes.
TIME_DECIMALS = {"ns": 1, "us": 2, "s": 3}
NS_PER = {"ns": 1, "us": 1000, "s": 1_000_000_000}


def format_time(value: float | None, unit: str) -> str:
    """A time already in `unit` ("ns", "us" or "s"), with that unit's decimals; "-" for None."""
    if value is None:
        return "-"
    return f"{value:.{TIME_DECIMALS[unit]}f}"

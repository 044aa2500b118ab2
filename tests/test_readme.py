"""Every command block of README.md runs, in order, in one scratch directory.

The README is a manual's first page: a command in it that no longer works is a bug. Blocks
are taken as they are written: ``sh`` blocks run under ``bash -e`` (so every line must
succeed), ``python`` blocks under this interpreter, and a ``c title="NAME"`` block is written
to NAME for the blocks after it. The one exception is the block of ``make`` targets: `make
test` would run this test again, so those lines are checked with ``make -n`` (make resolves
the target and its prerequisites without running them).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)(.*)$")
TITLE = re.compile(r'title="([^"]+)"')


def blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, title or "", body) of each fenced block, in order."""
    found, current, body = [], None, []
    for line in text.splitlines():
        match = FENCE.match(line)
        if match and current is None:
            title = TITLE.search(match.group(2))
            current, body = (match.group(1), title.group(1) if title else ""), []
        elif line.startswith("```") and current is not None:
            found.append((*current, "\n".join(body) + "\n"))
            current = None
        elif current is not None:
            body.append(line)
    assert current is None, "README.md has an unclosed code block"
    return found


def is_make_block(body: str) -> bool:
    lines = [line for line in body.splitlines() if line.strip()]
    return bool(lines) and all(line.startswith("make ") for line in lines)


def test_readme_is_a_first_page():
    text = README.read_text()
    assert len(text.splitlines()) < 400
    for author in ("Midkiff", "Nagaraju", "Abellán", "Krishna"):
        assert author in text
    first = blocks(text)[0]
    assert first[0] == "sh" and first[2].split() == ["make", "demo", "make", "test"]


def test_readme_blocks_parse():
    kinds = {(language, bool(title)) for language, title, _ in blocks(README.read_text())}
    assert kinds <= {("sh", False), ("python", False), ("c", True)}, kinds


def test_every_readme_block_runs(tmp_path):
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", MPLBACKEND="Agg")
    # No source checkout around the blocks: they must work from the installed package alone.
    ran = 0
    for language, title, body in blocks(README.read_text()):
        if language == "c":
            (tmp_path / title).write_text(body)
            continue
        if language == "sh" and is_make_block(body):
            targets = [line.split()[1] for line in body.splitlines() if line.strip()]
            command, cwd = ["make", "-n", *targets], ROOT
        elif language == "sh":
            command, cwd = ["bash", "-e", "-o", "pipefail", "-c", body], tmp_path
        else:
            command, cwd = [sys.executable, "-c", body], tmp_path
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            pytest.fail(f"README block failed ({done.returncode}):\n{body}\n{done.stderr[-3000:]}")
        assert done.stdout.strip() or command[0] == "make", f"printed nothing:\n{body}"
        ran += 1
    assert ran >= 6


INLINE = re.compile(r"`((?:cellblade|cellstats) [^`]+)`")
# Placeholders the README's prose uses for "a name of your choice".
PLACEHOLDERS = {"NAME": "allreduce.rdb"}


def test_every_command_the_prose_names_parses():
    """Commands quoted in the README's prose (not in a block, so not run) are real: each
    parses with the real parsers; a bare `cellblade COMMAND` names a command that exists."""
    from cellblade import cli
    from cellblade.cli.base import COMMANDS

    quoted = INLINE.findall(README.read_text())
    assert len(quoted) >= 8
    for command in quoted:
        words = [PLACEHOLDERS.get(word, word) for word in command.split()]
        if words[0] == "cellblade" and len(words) == 2:
            assert words[1] in COMMANDS, command
            continue
        parser = cli.build_cellstats_parser() if words[0] == "cellstats" else cli.build_parser()
        try:
            parser.parse_args(words[1:])
        except SystemExit as done:  # -h prints the help and exits 0; a bad command exits 2
            assert done.code == 0, command


SED = re.compile(r"^sed -i 's/([^/]+)/([^/]*)/' (\S+)$", re.M)


def test_every_edit_of_the_machine_file_changes_one_line():
    """`sed` succeeds when its pattern matches nothing, so the block running proves nothing: the
    README's edit of the machine file must match exactly one line of what `machine --toml`
    prints, whatever the value it replaces is today."""
    from cellblade.machine import machine_file

    edits = SED.findall(README.read_text())
    assert edits, "README.md no longer edits a machine file"
    text = machine_file("qs20", [])
    for pattern, replacement, _ in edits:
        assert len(re.findall(pattern, text, flags=re.M)) == 1, pattern
        assert re.sub(pattern, replacement, text, flags=re.M) != text, pattern

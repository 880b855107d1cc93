"""Every shell command that README.md and docs/*.md show in a fenced ```bash block runs, as
written, in a fresh copy of the project with the fixture mirror (tests/fixtures/mirror) and no
../shared beside it.

A command that would do real work runs in its dry form, and only that part is changed:

- ``snakemake ...`` gets ``-n`` (the DAG is built, every config and target is checked; nothing runs);
- ``pytest ...`` gets ``--collect-only -q`` (the tests are found and imported; none runs here);
- ``pip install ...`` gets ``--dry-run`` (resolved against the environment the tests run in);
- ``python3 -m venv .venv`` makes ``.venv`` a link to the environment the tests run in, so the
  ``. .venv/bin/activate`` after it activates an environment where the project is installed.

Files a command reads that a user writes first (a config overlay shown in the same page, a
user's own corpora and model) come from ``USER_FILES``: the page's own ```yaml block, written
as it stands, and fixture files at the paths the page names. A command whose doc shows no such
file fails here, so a page cannot show a command that does not run.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, WORKFLOW, copy_into
from helpers.doc_blocks import DOCS, byo_user_files, fenced_blocks

# what a copy of the project needs for every documented command (install, tests, tools)
PROJECT = [*WORKFLOW, "pyproject.toml", "README.md", "docs", "tools", "tests"]


def block_commands(body: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments and blank lines left out."""
    out, current = [], ""
    for line in body.splitlines():
        current += line.strip() if current else line.rstrip()
        if current.endswith("\\"):
            current = current[:-1].rstrip() + " "
            continue
        if current.strip() and not current.lstrip().startswith("#"):
            out.append(current.strip())
        current = ""
    return out


def documented_commands() -> list[tuple[str, str]]:
    """(where: file:line, command) of every command in a bash block of README and docs/."""
    found = []
    for doc in DOCS:
        for line, body in fenced_blocks(doc.read_text(), "bash"):
            found += [(f"{doc.relative_to(ROOT)}:{line}", cmd) for cmd in block_commands(body)]
    return found


def dry_part(part: str, python_prefix: str) -> str:
    """One ``&&``-separated part of a command in its dry form (see the module docstring)."""
    words = shlex.split(part)
    if not words:
        return part
    if "=" in words[0] and words[0].split("=", 1)[0].isidentifier():  # NAME=value before the command
        return f"{shlex.quote(words[0])} {dry_part(shlex.join(words[1:]), python_prefix)}"
    if words[:3] == ["python3", "-m", "venv"] or words[:3] == ["python", "-m", "venv"]:
        return f"ln -sfn {shlex.quote(python_prefix)} {shlex.quote(words[3])}"
    if words[0] == "snakemake" and not {"-n", "--dry-run", "--dryrun"} & set(words):
        return "snakemake -n " + part.split("snakemake", 1)[1].strip()
    if words[0] == "pytest" and "--collect-only" not in words:
        return "pytest --collect-only -q " + part.split("pytest", 1)[1].strip()
    if words[:2] == ["pip", "install"] and "--dry-run" not in words:
        return "pip install --dry-run " + part.split("install", 1)[1].strip()
    return part


def dry_form(command: str, python_prefix: str = sys.prefix) -> str:
    return " && ".join(dry_part(p.strip(), python_prefix) for p in command.split("&&"))


def test_dry_form_changes_only_what_would_do_work():
    assert dry_form("snakemake --cores all clark_syntax", "/env") == "snakemake -n --cores all clark_syntax"
    assert dry_form("snakemake -n --cores all", "/env") == "snakemake -n --cores all"
    assert dry_form('pytest -m "not slow"', "/env") == 'pytest --collect-only -q -m "not slow"'
    assert dry_form("A=all pytest -m e2e t.py", "/env") == "A=all pytest --collect-only -q -m e2e t.py"
    assert (
        dry_form("python3 -m venv .venv && . .venv/bin/activate && pip install -e .", "/env")
        == "ln -sfn /env .venv && . .venv/bin/activate && pip install --dry-run -e ."
    )
    assert (
        dry_form("python -m tools.docs.scorecard_readme --check", "/env")
        == "python -m tools.docs.scorecard_readme --check"
    )


def test_block_commands_join_continuations_and_drop_comments():
    body = "# a comment\nsnakemake --cores all \\\n  results/x.csv\n\npytest\n"
    assert block_commands(body) == ["snakemake --cores all results/x.csv", "pytest"]


def test_docs_show_commands():
    assert len(COMMANDS) >= 2, "README's two commands at least"


# files a command reads that its page has the user write first
USER_FILES = {"byo.yaml": byo_user_files}


COMMANDS = documented_commands()


@pytest.mark.slow
@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[where for where, _ in COMMANDS])
def test_documented_command_runs_as_written(where, command, tmp_path):
    work = copy_into(tmp_path / "project", PROJECT)
    for name, make in USER_FILES.items():
        if name in command:
            make(work)
    env = {
        **os.environ,
        "ATTN_MIRROR": str(work / "tests" / "fixtures" / "mirror"),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PIP_QUIET": "1",
    }
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        ["bash", "-c", dry_form(command)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (
        f"{where}: {command}\n(ran: {dry_form(command)})\n" + (done.stdout + done.stderr)[-4000:]
    )

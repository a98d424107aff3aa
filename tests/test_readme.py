"""The README stays true: its Python example runs, its commands name real files, CI runs its test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_example_runs():
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block, "the README has a Python example"
    exec(compile(block.group(1), "README.md", "exec"), {})


def test_quick_start_is_two_commands_and_ci_runs_the_test_command():
    start = README.index("## Quick start")
    section = README[start:README.index("\n## ", start + 5)]
    commands = re.findall(r"```\n(.*?)\n```", section, re.S)
    assert len(commands) == 2
    test_command = commands[1].split("&&")[-1].strip()
    assert "pytest" in test_command
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci
    for path in re.findall(r"fixtures/\S+", commands[0]):
        assert (ROOT / path).exists(), path

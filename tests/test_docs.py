"""The user documentation stays true: the runnable Python examples of these guides run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDES = ("streams.md", "kraft.md", "negotiation.md", "golden.md", "compat.md", "evolution.md", "lag.md")
DOCS = [Path(__file__).resolve().parents[1] / "docs" / name for name in GUIDES]
EXAMPLES = [(doc.name, i, block) for doc in DOCS
            for i, block in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S))]


@pytest.mark.parametrize(("doc", "index", "block"), EXAMPLES, ids=[f"{d}-{i}" for d, i, _ in EXAMPLES])
def test_python_examples_run(doc, index, block):
    exec(compile(block, f"{doc} example {index}", "exec"), {})

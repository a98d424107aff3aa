"""The user documentation stays true: every Python example in docs/ runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))
EXAMPLES = [(doc.name, i, block) for doc in DOCS
            for i, block in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S))]


@pytest.mark.parametrize(("doc", "index", "block"), EXAMPLES, ids=[f"{d}-{i}" for d, i, _ in EXAMPLES])
def test_python_examples_run(doc, index, block):
    exec(compile(block, f"{doc} example {index}", "exec"), {})

"""docs/protocol.md stays true: its Python example runs, and its tables match the code."""

from __future__ import annotations

import re
from pathlib import Path

import kafka_meta as km
from kafka_meta.codec.registry import schema_root
from kafka_meta.protocol import APIS
from kafka_meta.spec.loader import iter_spec_files

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


def test_the_example_runs(capsys):
    [block] = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    exec(compile(block, "docs/protocol.md example", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    promised = [line.removeprefix("# -> ") for line in block.splitlines() if line.startswith("# -> ")]
    assert promised
    assert printed == promised


def test_the_api_table_is_the_code():
    rows = re.findall(r"^\| (\w+) \((\d+)\) \| ([\d-]+) \| (\d+|none) \|$", DOC.read_text(), re.M)
    listed = set()
    for name, key, versions, flexible in rows:
        api = APIS[int(key)]
        low, _, high = versions.partition("-")
        first_flexible = None if flexible == "none" else int(flexible)
        assert (api.name, api.low, api.high, api.first_flexible) == (name, int(low), int(high or low), first_flexible)
        listed.add(name)
    ours = {path.stem for path in iter_spec_files(schema_root() / "protocol")}
    assert listed == {name.removesuffix("Request") for name in ours if name.endswith("Request")}
    assert ours <= set(km.types())

"""docs/lab.md's scenario table says what lab/labkit/scenarios.py holds: the same scenarios in the same order,
each taking the seconds the registry gives, and each row telling at least every number the registry's own
summary of it tells (a KIP, a release, ``kill -9``). The registry is read as Python, so no JVM and no broker
start; the table is read from the document, so editing either alone fails here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "lab.md"
LAB = ROOT / "lab"
NUMBER = re.compile(r"\d+(?:\.\d+)*")


def registry() -> dict:
    """labkit's scenarios (standard library only: importing them starts nothing)."""
    if str(LAB) not in sys.path:
        sys.path.insert(0, str(LAB))
    from labkit.scenarios import SCENARIOS

    return SCENARIOS


def scenario_table(text: str) -> list[tuple[str, str, int]]:
    """The rows of the table headed ``| scenario | what happens | takes |``: name, what happens, seconds."""
    header = re.search(r"^\| scenario \| what happens \| takes \|\n\|[-:| ]+\|\n((?:\|.*\|\n)+)", text, re.M)
    assert header, f"{DOC}: no table headed '| scenario | what happens | takes |'"
    rows = []
    for line in header.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == 3, f"{DOC}: a scenario row without three cells: {line}"
        name, what, takes = cells
        seconds = re.fullmatch(r"(\d+) s", takes)
        assert seconds, f"{DOC}: scenario {name}: 'takes' is {takes!r}, not 'N s'"
        rows.append((name.strip("`"), what, int(seconds.group(1))))
    return rows


TABLE = scenario_table(DOC.read_text())
SCENARIOS = registry()


def test_the_table_lists_the_registrys_scenarios_in_its_order():
    assert [name for name, _, _ in TABLE] == list(SCENARIOS)


def test_each_scenario_takes_the_seconds_the_registry_gives():
    wrong = {name: (seconds, SCENARIOS[name].takes_s) for name, _, seconds in TABLE
             if name in SCENARIOS and seconds != SCENARIOS[name].takes_s}
    assert wrong == {}, "docs/lab.md's 'takes' (left) against labkit/scenarios.py's takes_s (right)"


def test_each_row_tells_the_numbers_of_the_registrys_summary():
    missing = {name: sorted(set(NUMBER.findall(SCENARIOS[name].about)) - set(NUMBER.findall(what)))
               for name, what, _ in TABLE if name in SCENARIOS}
    assert {name: numbers for name, numbers in missing.items() if numbers} == {}


def test_the_reader_sees_a_row_that_disagrees():
    rows = scenario_table("| scenario | what happens | takes |\n|---|---|---:|\n| `storm` | a storm | 50 s |\n")
    assert rows == [("storm", "a storm", 50)] and rows[0][2] != SCENARIOS["storm"].takes_s

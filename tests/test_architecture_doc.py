"""docs/architecture.md's picture and its "What lives where" glossary cover the layer table, so the parts
people read first cannot fall behind the table the code is held to (tests/test_layers.py).

The picture is the first code block of the "## Layers" section: one row per line, a band label, then the
layers of that row, each optionally followed by a note in parentheses. The glossary is the code block after
"What lives where:": an entry starts at the line's first column with the layer's name; its continuation
lines are indented.

One naming rule for both: a layer is written as the table names it or as its module spells it, a hyphen
and an underscore being the same character (``metadata-log`` or ``metadata_log``, ``java-hash`` or
``java_hash``). In the picture, text in parentheses is a note and never names a layer; every other word
that is a layer's name places that layer on its row, and band labels use no layer's name.
"""

from __future__ import annotations

import re

from test_layers import DOC, LAYERS

TEXT = DOC.read_text()
NAMES = {layer.name.replace("_", "-"): layer for layer in LAYERS}
WORD = re.compile(r"[A-Za-z_][\w-]*")


def canonical(word: str) -> str:
    return word.replace("_", "-")


def code_block_after(marker: str) -> str:
    """The first fenced block after ``marker`` in the document."""
    start = TEXT.index(marker)
    block = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M).search(TEXT, start)
    assert block, f"{DOC}: no code block after {marker!r}"
    return block.group(1)


def without_notes(text: str) -> str:
    """The text with every parenthesised note blanked out (notes may nest and run over lines; the line
    breaks stay, so rows keep their numbers)."""
    out, depth = [], 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0 or char == "\n":
            out.append(char)
    return "".join(out)


def picture_rows(block: str) -> dict[str, list[int]]:
    """Each layer named in the picture, with the rows (line numbers, 0 at the top) it is named on."""
    rows: dict[str, list[int]] = {}
    for number, line in enumerate(without_notes(block).splitlines()):
        for word in WORD.findall(line):
            if canonical(word) in NAMES:
                rows.setdefault(canonical(word), []).append(number)
    return rows


def misplaced(rows: dict[str, list[int]]) -> list[str]:
    """Every allowance of the table the picture draws the wrong way: the importing layer not above."""
    return [f"{layer.name} (row {rows[canonical(layer.name)][0]}) may import {below} "
            f"(row {rows[canonical(below)][0]})"
            for layer in LAYERS for below in sorted(layer.may_import)
            if canonical(layer.name) in rows and canonical(below) in rows
            and rows[canonical(below)][0] <= rows[canonical(layer.name)][0]]


def glossary_entries(block: str) -> list[str]:
    """The names the glossary's entries start with, in order."""
    return [canonical(line.split()[0]) for line in block.splitlines() if line.strip() and not line[0].isspace()]


PICTURE = picture_rows(code_block_after("## Layers"))
GLOSSARY = glossary_entries(code_block_after("What lives where:"))


def test_every_layer_of_the_table_is_in_the_picture_once():
    missing = sorted(set(NAMES) - set(PICTURE))
    twice = {name: rows for name, rows in PICTURE.items() if len(rows) > 1}
    assert missing == [], f"{DOC}: layers of the table missing from the picture"
    assert twice == {}, f"{DOC}: layers drawn on more than one row"


def test_the_picture_stands_every_layer_above_what_it_may_import():
    """Imports point down: a layer's row is above the row of every layer it may import, never beside it."""
    assert misplaced(PICTURE) == []


def test_every_layer_has_one_glossary_entry_and_every_entry_is_a_layer():
    missing = sorted(set(NAMES) - set(GLOSSARY))
    strangers = [name for name in GLOSSARY if name not in NAMES]
    repeated = sorted({name for name in GLOSSARY if GLOSSARY.count(name) > 1})
    assert missing == [], f"{DOC}: layers without an entry under 'What lives where'"
    assert strangers == [], f"{DOC}: glossary entries that name no layer of the table"
    assert repeated == []


def test_the_readers_see_what_is_missing_or_drawn_too_high():
    """The checks above can fail: a layer named only inside a note is missing, one drawn beside or under a
    layer it imports is misplaced, and the glossary's entries are its unindented lines, either spelling."""
    rows = picture_rows("top      cli   spark\n"
                        "middle   api  (formats: below,\n"
                        "           over two lines)\n"
                        "bottom   wire   errors   java_hash\n")
    assert "formats" not in rows
    assert rows["cli"] == [0] and rows["api"] == [1] and rows["java-hash"] == [3]
    assert any(line.startswith("cli (row 0) may import spark (row 0)") for line in misplaced(rows))
    assert glossary_entries("errors    the exceptions\n          more of errors\njava_hash Java's hashes\n") == [
        "errors", "java-hash"]

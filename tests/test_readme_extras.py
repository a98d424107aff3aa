"""The README's command list says which extra each verb needs, and it is the extra the verb's own message
names when the packages are missing (``watch needs kafka-python: pip install 'kafka-meta[live]'``).

Both sides are read, nothing is installed. The README's list is the first code block of "## Command line":
a comment line ``# pip install 'kafka-meta[X]'...`` (or ``# no extra: ...``) heads the verbs below it. The
code's side is every message in kafka_meta/ of the form ``<verb> needs ... pip install 'kafka-meta[X]'``
(``<verb>'s ...`` too), docstrings aside; the message of the Parquet reader, which any verb reading inputs
can give, is held to the README's sentence about Parquet. Then each verb that needs an extra is run with
the extras' packages hidden (``sys.modules[name] = None``, as if never installed), and what it says must
name the README's extra; a few verbs listed under no extra are run the same way and must work.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_meta.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PACKAGE = ROOT / "kafka_meta"
EXTRA = re.compile(r"pip\s+install\s+'?kafka-meta\[(\w+)\]'?")
NEEDS = re.compile(r"^(?P<who>[\w ']+?) needs\b.*?pip install 'kafka-meta\[(?P<extra>\w+)\]'", re.S)
PARQUET = "reading Parquet"
# the import names of what the report, live and spark extras add to the plain install (pyproject.toml)
EXTRAS_PACKAGES = ("pyspark", "py4j", "pyarrow", "pandas", "numpy", "rich", "plotly", "jinja2", "kafka")


def verbs() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def verb_of(line: str) -> str | None:
    """The verb of a ``kafka-meta ...`` line: its first word after the global options (``--specs PATH``)."""
    words = line.split()
    if not words or words[0] != "kafka-meta":
        return None
    rest = iter(words[1:])
    for word in rest:
        if word == "--specs":
            next(rest, None)
        elif not word.startswith("-"):
            return word
    return None


def readme_extras(text: str) -> dict[str, str | None]:
    """Each verb of the README's command list with the extra heading it (None: no extra)."""
    start = text.index("## Command line")
    block = re.search(r"```\n(.*?)```", text[start:], re.S)
    assert block, "README.md: no code block under '## Command line'"
    found: dict[str, set[str | None]] = {}
    extra: str | None = "unheaded"
    for line in block.group(1).splitlines():
        if line.startswith("#"):
            named = EXTRA.search(line)
            extra = named.group(1) if named else None
            assert named or "no extra" in line, f"README.md: a heading that names no extra: {line}"
            continue
        verb = verb_of(line)
        if verb is not None:
            found.setdefault(verb, set()).add(extra)
    assert all(len(e) == 1 for e in found.values()), f"README.md: verbs under two headings: {found}"
    return {verb: next(iter(e)) for verb, e in found.items()}


def readme_parquet_extra(text: str) -> str | None:
    start = text.index("## Command line")
    section = text[start:text.index("\n## ", start + 3)]
    sentence = re.search(r"A Parquet input[^.]*?" + EXTRA.pattern, section, re.S)
    return sentence.group(1) if sentence else None


def docstrings(tree: ast.AST) -> set[int]:
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef)))]
    return {id(n.body[0].value) for n in nodes if n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}


def code_messages() -> list[tuple[str, str, str]]:
    """(who, extra, where) of every 'needs ... pip install' message in kafka_meta/, docstrings aside."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        skip = docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                said = NEEDS.search(node.value)
                if said:
                    found.append((said.group("who"), said.group("extra"),
                                  f"{path.relative_to(ROOT)}:{node.lineno}"))
    return found


def code_extras(messages: list[tuple[str, str, str]], known: set[str]) -> dict[str, set[str]]:
    """The extras the messages name, by verb (``watch's live view`` is watch's), and by PARQUET."""
    by: dict[str, set[str]] = {}
    for who, extra, where in messages:
        first = who.split()[0].removesuffix("'s")
        key = first if first in known else PARQUET if who == PARQUET else None
        assert key is not None, f"{where}: {who!r} needs {extra}: neither a verb nor the Parquet reader"
        by.setdefault(key, set()).add(extra)
    return by


VERBS = verbs()
LISTED = readme_extras(README)
NEEDED = code_extras(code_messages(), VERBS)


def test_the_readme_lists_every_verb_under_an_extra_or_none():
    assert set(LISTED) == VERBS
    assert "unheaded" not in LISTED.values(), "README.md: a verb above the first extra heading"


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_the_readme_names_the_extra_the_verbs_message_names(verb):
    in_code = NEEDED.get(verb, set())
    assert len(in_code) <= 1, f"{verb}'s messages name several extras: {in_code}"
    assert LISTED[verb] == (next(iter(in_code)) if in_code else None)


def test_the_readme_names_the_extra_the_parquet_reader_names():
    assert NEEDED.get(PARQUET) == {readme_parquet_extra(README)}


def hidden(*args: str) -> subprocess.CompletedProcess:
    """kafka-meta run as if none of the extras' packages were installed."""
    script = ("import sys\n"
              f"for name in {EXTRAS_PACKAGES!r}:\n"
              "    sys.modules[name] = None  # import fails, find_spec says absent: as if never installed\n"
              "from kafka_meta.cli.main import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


# each verb that needs an extra, run the shortest way that reaches what needs it
NEEDING = [("analyze", ("analyze", "fixtures/captures/capture.jsonl", "--output", "unused")),
           ("stream", ("stream",)),
           ("report", ("report", "fixtures/captures/capture.jsonl")),
           ("watch", ("watch", "--bootstrap-server", "127.0.0.1:1", "--duration", "1")),
           ("watch", ("watch", "--bootstrap-server", "127.0.0.1:1", "--duration", "1", "--format", "json"))]


@pytest.mark.parametrize(("verb", "args"), NEEDING, ids=[" ".join(a) for _, a in NEEDING])
def test_without_its_extra_a_verb_names_the_readmes_extra(verb, args):
    done = hidden(*args)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert [m.group(1) for m in EXTRA.finditer(done.stderr)] == [LISTED[verb]], done.stderr


PLAIN = [("types",), ("decode", "ConsumerProtocolSubscription", "--hex", "0001000000010003666f6fffffffff00000000"),
         ("offsets", "fixtures/captures/capture.jsonl"), ("simulate", "--from", "2.3", "--to", "3.9", "--members", "2")]


@pytest.mark.parametrize("args", PLAIN, ids=[a[0] for a in PLAIN])
def test_a_verb_listed_under_no_extra_works_without_them(args):
    assert LISTED[args[0]] is None
    done = hidden(*args)
    assert done.returncode == 0, done.stderr
    assert "pip install" not in done.stderr


def test_the_readers_see_a_verb_under_the_wrong_heading():
    listed = readme_extras("## Command line\n\n```\n# pip install 'kafka-meta[live]': x\nkafka-meta report IN\n"
                           "# no extra: pip install kafka-meta\nkafka-meta --specs d types\n```\n")
    assert listed == {"report": "live", "types": None}
    assert code_extras([("report", "report", "here")], {"report"}) == {"report": {"report"}} != {
        "report": {listed["report"]}}

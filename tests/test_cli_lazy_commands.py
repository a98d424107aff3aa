"""A run of ``kafka-meta`` loads only its own command's module: ``capture`` starts without Spark, the
analysis, the report or the golden files, and every command parses exactly as it does with the whole parser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_meta.cli.main import build_parser, command_word, main

ROOT = Path(__file__).resolve().parents[1]
STORM = ROOT / "fixtures" / "captures" / "pcap" / "cfk_storm.pcap"
NOT_FOR_CAPTURE = ("pyspark", "plotly", "rich", "pandas", "pyarrow", "kafka_meta.spark", "kafka_meta.analysis",
                   "kafka_meta.report", "kafka_meta.golden", "kafka_meta.log", "kafka_meta.negotiation",
                   "kafka_meta.simulate", "kafka_meta.compat", "kafka_meta.evolution")


def subcommands(parser) -> dict:
    """Command name -> its sub-parser."""
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return action.choices


ALL_COMMANDS = sorted(subcommands(build_parser()))


def test_capture_runs_without_the_other_commands_dependencies():
    script = ("import json, sys\n"
              "from kafka_meta.cli.main import main\n"
              "code = main(['capture', '--quiet', sys.argv[1]])\n"
              "sys.stdout.flush()\n"
              "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script, str(STORM)], capture_output=True, text=True, cwd=ROOT,
                          check=True)
    report = json.loads(done.stderr.splitlines()[-1])
    lines = done.stdout.splitlines()
    assert report["code"] == 0 and len(lines) == 143, "the capture is read and printed"
    assert json.loads(lines[0])["apiName"]
    loaded = [m for m in report["modules"] if m.split(".")[0] in ("pyspark", "plotly", "rich", "pandas", "pyarrow")
              or m.startswith(NOT_FOR_CAPTURE)]
    assert loaded == []


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_command_parses_as_with_the_whole_parser(command):
    whole = subcommands(build_parser())[command]
    alone = subcommands(build_parser(command))
    assert command in alone
    assert alone[command].format_help() == whole.format_help()


def test_commands_named_after_their_module_are_loaded_alone():
    assert sorted(subcommands(build_parser("capture"))) == ["capture"]
    assert sorted(subcommands(build_parser("log"))) == ["log"]
    # decode lives in the codec module with types and encode: that module is found by loading them all
    assert sorted(subcommands(build_parser("decode"))) == ALL_COMMANDS
    assert sorted(subcommands(build_parser("no-such-command"))) == ALL_COMMANDS


@pytest.mark.parametrize(("argv", "word"), [
    (["capture", "x.pcap"], "capture"),
    (["--specs", "dir", "decode", "T"], "decode"),
    (["--specs=dir", "--specs", "other", "log", "seg"], "log"),
    (["--help"], None),
    (["--spec", "dir", "capture"], None),  # an abbreviated option: left to the whole parser
    (["--specs"], None),
    ([], None),
])
def test_command_word(argv, word):
    assert command_word(argv) == word


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert len(ALL_COMMANDS) >= 10
    for command in ALL_COMMANDS:
        assert f"\n    {command} " in out


def test_an_unknown_command_is_one_usage_line_naming_the_choices(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["captur", "x.pcap"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert "invalid choice: 'captur'" in err and "'capture'" in err and "'decode'" in err

"""Running the command line in the test's own process, as the verbs' tests do."""

from __future__ import annotations

import json
from typing import Any

from kafka_meta.cli.main import main


def run(capsys: Any, argv: list[str]) -> tuple[int, list[Any], str]:
    """The exit status, the JSON lines written to stdout (parsed) and stderr of one command."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err

"""Every number a ``kafka-meta`` help text gives is the one the code uses.

The whole parser (``kafka_meta.cli.main.build_parser()``) is walked, every sub-command's options with it,
and each option's help is read as ``--help`` prints it (``%(default)s`` expanded). A number in it must be:

* the option's own default (argparse's ``default``), compared as a number;
* or a value the code computes elsewhere, listed in ``CITED`` with the code that gives it now (the log
  verb's parallel threshold, ``PARALLEL_FROM_BYTES``; the simulator's topic size);
* or no quantity at all: a KIP, a Kafka release, a message version named as an example (``NOT_QUANTITIES``).

A number that is none of these fails, so a help text that starts citing a constant gets an entry here. A
default stated in words (``default: __consumer_offsets``) is held to the option's default or a cited value
when it reads as a value (it holds ``_``, ``/`` or ``.``, or is one of the option's choices).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator

import pytest

from kafka_meta.cli.main import build_parser


def _parallel_threshold_mb() -> object:
    from kafka_meta.cli.log_dump import PARALLEL_FROM_BYTES

    return PARALLEL_FROM_BYTES >> 20


def _jobs_below_the_threshold() -> object:
    from kafka_meta.cli.log_dump import jobs_for

    return jobs_for([], None)  # nothing to read in parallel: the processes a small log gets


def _partitions(members: int) -> int:
    from kafka_meta.simulate.scenario import STREAMS, rolling_upgrade

    return rolling_upgrade(STREAMS, "2.4", "3.9", members=members).partitions


def _group_metadata_number() -> object:
    from kafka_meta.offsets.catalog import record_type

    return record_type("GroupMetadata").number


def _offsets_topic() -> object:
    from kafka_meta.spark.job import OFFSETS_TOPIC

    return OFFSETS_TOPIC


# (verb, option) -> {number or value as the help writes it: what the code gives for it now}
def _report_parallel_mb() -> int:
    from kafka_meta.cli.report_reading import PARALLEL_FROM_BYTES

    return PARALLEL_FROM_BYTES >> 20


CITED: dict[tuple[str, str], dict[str, Callable[[], object]]] = {
    ("log", "--jobs"): {"4": _parallel_threshold_mb, "1": _jobs_below_the_threshold},
    ("report", "--jobs"): {"64": lambda: _report_parallel_mb()},
    # "2 per member, min 6": 2 per member above three members, 6 up to three
    ("simulate", "--partitions"): {"2": lambda: _partitions(5) // 5, "6": lambda: _partitions(1)},
    ("analyze", "input"): {"__consumer_offsets": _offsets_topic},
    ("offsets", "--type"): {"2": _group_metadata_number},  # "e.g. GroupMetadata or 2"
}
NOT_QUANTITIES = (
    r"KIP-\d+",  # a Kafka Improvement Proposal
    r"Kafka \d+(?:\.\d+)+\+?",  # a Kafka release
    r"\bv\d+\b",  # a message version, as an example of what an option takes
    r"\blatest\+\d+",  # a version counted from the newest known
    r"\b\d{4} trunk\b",  # Kafka's trunk of that year, one of --suite's branches
    r"\bexit (?:status|with) \d\b",  # an exit status: each verb's own tests hold it
)
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
STATED = re.compile(r"\bdefault:?\s+(\S+?)[,;)]?(?:\s|$)")


def options() -> Iterator[tuple[str, argparse.ArgumentParser, argparse.Action]]:
    """Every option of every parser, with the verb it belongs to ('' for the global ones)."""
    def walk(parser: argparse.ArgumentParser, verb: str) -> Iterator[tuple[str, argparse.ArgumentParser,
                                                                          argparse.Action]]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    yield from walk(child, f"{verb} {name}".strip())
            elif action.help and action.help is not argparse.SUPPRESS and not isinstance(
                    action, argparse._HelpAction):
                yield verb, parser, action
    yield from walk(build_parser(), "")


def rendered(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help as ``--help`` prints it: argparse's own expansion of ``%(name)s``."""
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    params["prog"] = parser.prog
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return str(action.help) % params


def name_of(action: argparse.Action) -> str:
    return max(action.option_strings, key=len) if action.option_strings else action.dest


def same(written: str, value: object) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        try:
            return float(written) == float(value)
        except ValueError:
            return False
    return str(value) in (written, written.removeprefix("./"))


def problems(verb: str, option: str, text: str, default: object, choices: object) -> list[str]:
    """What is wrong with one help text: numbers nobody accounts for, a stated value that is not the code's."""
    cited = CITED.get((verb, option), {})
    wrong = []
    bare = text
    for pattern in NOT_QUANTITIES:
        bare = re.sub(pattern, " ", bare)
    for number in NUMBER.findall(bare):
        if same(number, default):
            continue
        if number not in cited:
            wrong.append(f"{verb} {option}: {number!r} in its help is neither its default ({default!r}) nor "
                         f"cited in tests/test_help_numbers.py CITED")
        elif not same(number, cited[number]()):
            wrong.append(f"{verb} {option}: its help says {number}, the code gives {cited[number]()!r}")
    for stated in STATED.findall(text):
        looks_like_a_value = any(c in stated for c in "_/.") or stated in (choices or ())
        if looks_like_a_value and not NUMBER.fullmatch(stated) and not same(stated, default) and not (
                stated in cited and same(stated, cited[stated]())):
            wrong.append(f"{verb} {option}: its help gives the default {stated!r}, argparse's is {default!r}")
    return wrong


OPTIONS = list(options())


def test_the_walk_reaches_every_verb_and_their_options():
    verbs = {verb for verb, _, _ in OPTIONS}
    assert {"analyze", "log", "report", "watch", "stream", "simulate", "golden add", "decode"} <= verbs
    assert len(OPTIONS) > 80


CASES = [pytest.param(verb, name_of(action), rendered(parser, action), action.default, action.choices,
                      id=f"{verb or 'kafka-meta'} {name_of(action)}")
         for verb, parser, action in OPTIONS
         if NUMBER.search(rendered(parser, action)) or STATED.search(rendered(parser, action))]


@pytest.mark.parametrize(("verb", "option", "help_text", "default", "choices"), CASES)
def test_each_number_in_a_help_is_what_the_code_uses(verb, option, help_text, default, choices):
    assert problems(verb, option, help_text, default, choices) == []


def test_the_cited_constants_are_cited_where_their_help_is():
    """An entry of CITED whose option is gone, or whose help no longer gives that number, is stale."""
    helps = {(verb, name_of(action)): rendered(parser, action) for verb, parser, action in OPTIONS}
    stale = [f"{key}: {written}" for key, numbers in CITED.items() for written in numbers
             if key not in helps or written not in helps[key]]
    assert stale == []


def test_the_check_sees_a_hand_written_default_that_drifted():
    assert problems("report", "--storm-rounds", "rounds that make a storm (default 4)", 3, None)
    assert problems("log", "--jobs", "one per core from 32 MB", None, None)
    assert problems("log", "--jobs", "one per core from 4 MB, else 1", None, None) == []
    assert problems("stream", "--topic", "the topic (default: __other)", "__consumer_offsets", None)
    assert problems("x", "--format", "how (default: json)", "text", ("text", "json"))
    assert problems("x", "--level", "(default: recognise each)", "auto", ("auto", "hex")) == []


def test_the_expansion_is_what_help_prints():
    """The help read here is the help printed: a text written with %(default)s reads, in --help, as the
    expansion these checks looked at."""
    expanded = [(verb, parser, action) for verb, parser, action in OPTIONS if "%(default)" in str(action.help)]
    assert expanded, "no help uses %(default)s: the check below would check nothing"
    for verb, parser, action in expanded:
        printed = " ".join(parser.format_help().split())
        assert " ".join(rendered(parser, action).split()) in printed, f"{verb} {name_of(action)}"

"""``kafka-meta explain`` and ``kafka-meta simulate``: the negotiation rules from the command line.

Exit status (kafka_meta.cli.status): ``explain`` ends with 1 when some input, row or group could not be read
or explained (damage read around included) or none held a group, ``simulate`` when the simulation finds a
problem (a check that failed); options that do not go together or take no such value are usage errors (2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from kafka_meta.cli.output import emit_json, fail
from kafka_meta.cli.status import OK, PROBLEM, require_paths

PROBLEMS_FOUND = PROBLEM  # the simulation found a problem: a check that failed
MAX_MEMBERS = 100  # 100 members simulate in seconds; 1,000 would take tens of minutes


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "explain", help="explain a captured group's version negotiation",
        description="Each input is recognised by its content, as every verb's: packet captures (the newest "
                    "generation of each group, from its JoinGroup and SyncGroup), JSON Lines or Parquet of "
                    "members ({\"member\", \"subscription\", \"assignment\", \"release\", \"leader\", "
                    "\"protocol\", \"group\"}; bytes as hex or base64), payloads ({\"type\", \"group\", "
                    "\"member\", \"hex\"}), captured exchanges or __consumer_offsets records ({\"key\", "
                    "\"value\"}), and broker log segments; the last GroupMetadata record per group is explained.")
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="files or directories of any kind the project reads; - for stdin")
    p.add_argument("--release", action="append", default=[], metavar="MEMBER=RELEASE",
                   help="a member's Kafka release (repeatable); otherwise inferred from its subscription")
    p.add_argument("--leader-release", help="the leader's Kafka release")
    p.add_argument("--message", help="explain a Kafka log or exception line about versions instead")
    p.add_argument("--restart", metavar="RELEASE",
                   help="explain what restarting one member of this release costs its group instead")
    p.add_argument("--instance-id", help="--restart: the member's group.instance.id (static membership)")
    p.add_argument("--downtime-ms", type=int, default=0, help="--restart: how long it is away")
    p.add_argument("--session-timeout-ms", type=int, help="--restart: session.timeout.ms (default: the client's)")
    p.add_argument("--json", action="store_true", help="print JSON (one object per group)")
    p.set_defaults(run=run_explain)

    p = sub.add_parser(
        "simulate", help="simulate a rolling upgrade and print its rebalances",
        description="Members start on --from and are bounced to --to. Streams: one rolling bounce, or two with "
                    "--upgrade-from (set in the first, removed in the second). Consumers: one round per "
                    "--assignors value (default: 'cooperative-sticky,range' then 'cooperative-sticky'), "
                    "starting from 'range'. Exit status 1 when the simulation finds a problem.")
    p.add_argument("--from", dest="from_release", metavar="RELEASE")
    p.add_argument("--to", dest="to_release", metavar="RELEASE",
                   help="a release, or future code by its latest version (v12, latest+1)")
    p.add_argument("--kafka-tests", action="store_true",
                   help="replay the rolling-upgrade matrices of Kafka's Streams upgrade system tests instead")
    p.add_argument("--seed", type=int, default=0, help="--kafka-tests: the seed of the random bounce orders")
    p.add_argument("--suite", action="append", default=[],
                   choices=("4.2", "trunk-2024", "3.7", "3.6", "3.4", "3.0", "2.8", "2.4"),
                   help="--kafka-tests: the test files of one branch (or the 2024 trunk); repeatable; default all")
    p.add_argument("--members", type=int, default=3)
    p.add_argument("--kind", choices=("streams", "consumer"), default="streams")
    p.add_argument("--order", action="append", default=[],
                   help="bounce order of a round: member names or indices separated by commas, or 'join' "
                        "(default), 'reverse', 'leader-last'; repeat for the second round")
    p.add_argument("--succession", choices=("oldest", "newest"), default="oldest",
                   help="whom the coordinator makes leader when the leader leaves: the longest-standing member "
                        "(default) or the newest one (after a bounce, the restarted member itself); Kafka's choice "
                        "is arbitrary")
    p.add_argument("--upgrade-from", help="Streams: upgrade.from for the first of two rolling bounces")
    p.add_argument("--assignors", action="append", default=[], metavar="LIST",
                   help="consumers: the assignor list of one bounce round, comma-separated; repeatable")
    p.add_argument("--partitions", type=int, help="partitions of the input topic (default: 2 per member, min 6)")
    p.add_argument("--static", action="store_true",
                   help="give every member a group.instance.id (static membership, KIP-345)")
    p.add_argument("--downtime-ms", type=int, default=0,
                   help="how long each bounced member is away (static members: against the session timeout)")
    p.add_argument("--session-timeout-ms", type=int, help="session.timeout.ms (default: each client's default)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(run=run_simulate)


# -- explain ---------------------------------------------------------------------------------------------------

def _releases(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        member, sep, rel = item.partition("=")
        if not sep or not member or not rel:
            raise ValueError(f"--release takes MEMBER=RELEASE, not {item!r}")
        out[member] = rel
    return out


def run_explain(args: argparse.Namespace) -> int:
    from kafka_meta.negotiation.capture import explain_group
    from kafka_meta.negotiation.explain import explain_message
    from kafka_meta.negotiation.outcomes import NegotiationError

    if args.restart:
        return _explain_restart(args)
    if args.message:
        lines = explain_message(args.message)
        if not lines:  # the text given is the input, and holds nothing this verb reads
            return fail("no version message recognised in the text", PROBLEM)
        if args.json:
            emit_json({"message": args.message, "explanation": lines})
        else:
            print("\n".join(lines))
        return 0
    if not args.inputs:
        return fail("give INPUTs holding captured groups (captures, members, records), or --message TEXT")
    try:
        releases = _releases(args.release)
    except ValueError as e:
        return fail(str(e))
    require_paths(args.inputs)
    groups, problems, unreadable, read = _captured_groups(args.inputs)  # problems: how many were said
    if not groups:
        if not read and unreadable:
            return PROBLEM  # nothing could be read, and each input has said why
        return fail("no group with members found in the input", PROBLEM)
    for group in groups:
        try:
            explanation = explain_group(group, releases, args.leader_release)
        except NegotiationError as e:
            problems += 1
            print(f"kafka-meta explain: group {group.group_id}: {e}", file=sys.stderr)
            continue
        if args.json:
            emit_json({"group": group.group_id, "kind": explanation.kind, "summary": explanation.summary,
                       "details": explanation.details, "data": explanation.data})
        else:
            print(explanation.text())
    return PROBLEM if problems or unreadable else OK


def _captured_groups(names: list[str]) -> tuple[list[Any], int, list[str], int]:
    """The groups of the inputs (read the way every input is: kafka_meta.inputs); how many things could not be
    read (damage read around, rows that are no members or records); the inputs that could not be read at all;
    and how many rows were read. Each problem is said on stderr as it is met, in the order of the input: the
    rows reach the group reader one at a time, and what it found wrong with a row is said before the next
    row's damage. Rows of members, payloads and records keep their order (the last GroupMetadata record of a
    group wins); captured exchanges give each group's newest generation.

    What is kept follows the groups, not the rows: the group reader keeps each group's newest members, the
    exchanges give theirs one at a time (:class:`~kafka_meta.negotiation.capture.NewestGenerations`), and the
    problems are counted once said."""
    from kafka_meta.inputs import Damage, Unreadable, rows
    from kafka_meta.negotiation.capture import NewestGenerations, read_groups

    exchanges = NewestGenerations()
    problems: list[str] = []  # what the group reader found, then the damage, in the order met; emptied once said
    unreadable: list[str] = []
    said, read = 0, 0

    def say_problems() -> None:
        nonlocal said
        for line in problems:
            print(line, file=sys.stderr)
        said += len(problems)
        problems.clear()

    def member_rows() -> Iterator[dict[str, Any]]:
        nonlocal read
        for item in rows(names):
            say_problems()  # the group reader's verdict on the row before this item
            if isinstance(item, Unreadable):
                print(f"kafka-meta explain: {item}", file=sys.stderr)
                unreadable.append(str(item))
            elif isinstance(item, Damage):
                problems.append(str(item))
            elif item.kind == "exchange":
                exchanges.feed(item.data)
                read += 1
            else:
                read += 1
                yield item.data
        say_problems()

    groups = read_groups(member_rows(), problems)
    say_problems()
    groups += exchanges.groups()
    return groups, said, unreadable, read


# -- simulate --------------------------------------------------------------------------------------------------

def _order(spec: str, names: list[str]) -> list[str]:
    if spec == "join":
        return list(names)
    if spec == "reverse":
        return list(reversed(names))
    if spec == "leader-last":
        return names[1:] + names[:1]
    out = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        out.append(names[int(part)] if part.isdigit() and int(part) < len(names) else part)
    return out


def _explain_restart(args: argparse.Namespace) -> int:
    from kafka_meta.negotiation.explain import explain_restart

    try:
        explanation = explain_restart(args.restart, args.instance_id, args.downtime_ms, args.session_timeout_ms)
    except ValueError as e:
        return fail(str(e))
    if args.json:
        emit_json({"summary": explanation.summary, "details": explanation.details, **explanation.data})
    else:
        print(explanation.text())
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    from kafka_meta.simulate import CONSUMER, STREAMS, Succession, render_table, rolling_upgrade, simulate
    from kafka_meta.simulate.scenario import member_names

    if args.kafka_tests:
        return run_kafka_tests(args)
    if not args.from_release or not args.to_release:
        return fail("simulate needs --from and --to (or --kafka-tests)")
    if not 1 <= args.members <= MAX_MEMBERS:
        return fail(f"--members must be between 1 and {MAX_MEMBERS}: every bounce replays a rebalance of every "
                    "member, so the work grows with the cube of the group's size")
    names = member_names(args.members)
    orders = [_order(spec, names) for spec in args.order] or None
    kind = STREAMS if args.kind == "streams" else CONSUMER
    assignors = [tuple(a.strip() for a in spec.split(",") if a.strip()) for spec in args.assignors] or None
    if kind == STREAMS and assignors:
        return fail("--assignors is for --kind consumer")
    if kind == CONSUMER and args.upgrade_from:
        return fail("--upgrade-from is for --kind streams")
    try:
        scenario = rolling_upgrade(kind, args.from_release, args.to_release, members=args.members, orders=orders,
                                   upgrade_from=args.upgrade_from, assignors=assignors, partitions=args.partitions,
                                   succession=Succession(args.succession), static=args.static,
                                   downtime_ms=args.downtime_ms)
        if args.session_timeout_ms is not None:
            scenario = replace(scenario, session_timeout_ms=args.session_timeout_ms)
    except ValueError as e:
        return fail(str(e))
    report = simulate(scenario)
    if args.json:
        emit_json(report_json(report), indent=2)
    else:
        print(render_table(report))
    return OK if report.ok else PROBLEMS_FOUND


def run_kafka_tests(args: argparse.Namespace) -> int:
    from kafka_meta.simulate.kafka_tests import cases, render, replay

    reports = [replay(case) for case in cases(args.seed, tuple(args.suite) or None)]
    if args.json:
        emit_json([{
            "suite": r.case.suite, "test": r.case.test, "fromVersion": r.case.from_version,
            "toVersion": r.case.to_version, "variant": r.case.variant,
            "asKafkaExpects": r.passed, "problems": r.problems,
            "bounces": [{"trigger": b.trigger, "generations": list(b.generations), "stable": b.stable,
                         "instances": {m: {"release": s.release, "upgradeFrom": s.upgrade_from, "sent": s.sent,
                                           "protocol": s.protocol} for m, s in b.instances.items()}}
                        for b in r.bounces],
        } for r in reports], indent=2)
    else:
        print(render(reports))
    return OK if all(r.passed for r in reports) else PROBLEMS_FOUND


def report_json(report: Any) -> dict[str, Any]:
    return {
        "kind": report.kind,
        "succession": report.succession,
        "ok": report.ok,
        "rebalances": report.rebalances,
        "converged": report.converged,
        "convergence": report.convergence,
        "finalVersions": report.final_versions,
        "problems": report.problems(),
        "rounds": [{
            "round": r.number, "generation": r.generation, "rebalance": r.rebalance, "trigger": r.trigger,
            "leader": r.leader,
            "assignor": r.assignor, "events": r.events, "violations": r.violations,
            "members": [{"member": row.member, "release": row.release, "protocol": row.protocol, "sent": row.sent,
                         "received": row.received, "action": row.action, "owns": row.owned,
                         "callbacks": row.callbacks} for row in r.rows],
        } for r in report.rounds],
    }

"""``kafka-meta watch``: the rebalance timeline and the transactions of a running cluster, live
(:mod:`kafka_meta.live`).

Exit status (kafka_meta.cli.status): 1 when the cluster does not answer within ``--connect-timeout`` or
refuses the login, as ``analyze`` and ``stream`` end against a cluster they cannot reach; 2 for an address or
a number that is none, or a ``--command-config`` setting the watch cannot take."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kafka_meta.cli.output import fail
from kafka_meta.errors import InputError
from kafka_meta.protocol.servers import bootstrap_servers


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("watch", help="the rebalance timeline and transactions of a running cluster, as they happen",
                       description="""Read __consumer_offsets and __transaction_state (every partition,
                                   read_committed, joining no group) and describe the groups the cluster holds;
                                   show each group's state, generation or epoch, members, last rebalance round and
                                   why it started, and its commit rate, and the transactions: those ended, the
                                   open ones with their age, a transaction open past its transaction.timeout.ms
                                   and a fenced producer as they are found, live. Survives the cluster going away
                                   and coming back. Ends after --duration or on Ctrl-C, the HTML report
                                   written.""")
    p.add_argument("--bootstrap-server", required=True, metavar="HOST:PORT", help="a broker of the cluster")
    p.add_argument("--group", action="append", metavar="G",
                   help="only this group (repeat for more); transactions are shown whichever groups are chosen")
    p.add_argument("--from-beginning", action="store_true",
                   help="read __consumer_offsets and __transaction_state from their oldest records (default: from "
                        "now on; a topic created after the watch started is read whole); the view says how far "
                        "behind the log end it is until it has caught up")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds (default: until Ctrl-C)")
    p.add_argument("--command-config", metavar="FILE",
                   help="Java client properties (security.protocol, sasl.*, ssl.*) as Kafka's tools take them")
    p.add_argument("--html", metavar="FILE", help="keep rewriting the offline HTML report here")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="stdout: the live view (default) or JSON lines of events and snapshots")
    p.add_argument("--connect-timeout", type=float, default=30.0, metavar="S",
                   help="how long to keep trying to reach the cluster at first (default %(default)g)")
    p.set_defaults(run=run_watch)


def run_watch(args: argparse.Namespace) -> int:
    from kafka_meta.live.properties import client_settings
    from kafka_meta.live.session import WatchOptions, watch

    if args.duration is not None and args.duration <= 0:
        return fail("--duration must be positive")
    if args.connect_timeout <= 0:
        return fail("--connect-timeout must be positive")
    try:
        bootstrap_servers(args.bootstrap_server, "--bootstrap-server")
    except InputError as e:
        return fail(str(e))
    settings = client_settings(args.command_config) if args.command_config else {}
    outputs: list[Any] = []
    if args.format == "json":
        from kafka_meta.live.view import JsonLines

        outputs.append(JsonLines())
    else:
        try:
            from kafka_meta.live.view import TerminalView

            outputs.append(TerminalView())
        except ImportError:
            return fail("watch's live view needs rich: pip install 'kafka-meta[live]' (or use --format json)")
    if args.html:
        from kafka_meta.live.view import HtmlReport

        outputs.append(HtmlReport(args.html, f"Rebalance timeline: {args.bootstrap_server}"))
    options = WatchOptions(args.bootstrap_server, settings, args.group, args.from_beginning, args.duration,
                           args.connect_timeout)
    try:
        watch(options, outputs)
    finally:
        if args.html:
            print(f"kafka-meta watch: wrote {args.html}", file=sys.stderr)
    return 0

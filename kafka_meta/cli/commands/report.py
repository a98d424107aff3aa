"""``kafka-meta report``: the rebalance timeline of small inputs, without Spark (terminal, JSON, HTML).

Exit status (kafka_meta.cli.status), as ``analyze``'s: 1 unless everything was read
(:attr:`~kafka_meta.analysis.report.AnalysisReport.read_everything`: no input unreadable, no damage read around, no
record or payload that did not decode; each listed in the report); 2 for a path that does not exist or a
threshold out of range."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kafka_meta.cli.output import emit_json_document, fail
from kafka_meta.cli.status import OK, PROBLEM, require_paths


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("report", help="the rebalance timeline of captures and __consumer_offsets dumps",
                       description="""Read packet captures, JSON Lines or Parquet of captured exchanges or of
                                   __consumer_offsets records, broker log segments and directories holding any
                                   of them (each file recognised by its content); print each group's rebalance
                                   rounds and the findings (groups with the most trouble first), and write a
                                   self-contained HTML report with -o. Exit status 1 when some input, record or
                                   payload could not be read (each is listed in the report).""")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a capture, JSON Lines, Parquet, a log segment, or a directory of any of them")
    p.add_argument("-o", "--output", help="write the HTML report here (one offline file)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="stdout: the terminal report (default) or the report as JSON (the document "
                        "analyze writes to report.json)")
    p.add_argument("--storm-rounds", type=int, default=3, help="rounds that make a storm (default %(default)s) ...")
    p.add_argument("--storm-window", type=float, default=300.0, help="... within these seconds (default %(default)g)")
    p.add_argument("--eager-pause", type=float, default=5.0,
                   help="report eager rounds stopping the world longer than these seconds (default %(default)g)")
    p.add_argument("--stuck-rounds", type=int, default=2,
                   help="mixed metadata versions across this many rounds: a stuck upgrade (default %(default)s)")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="processes reading a broker's log directory (default: one per core, from 64 MB)")
    p.set_defaults(run=run_report)


def run_report(args: argparse.Namespace) -> int:
    try:
        from kafka_meta.report.terminal import render_terminal
    except ImportError:
        return fail("report needs rich and plotly: pip install 'kafka-meta[report]'")
    from kafka_meta.analysis.findings import Thresholds
    from kafka_meta.cli.report_reading import read_report

    if args.storm_rounds < 2 or args.storm_window <= 0 or args.eager_pause < 0 or args.stuck_rounds < 1:
        return fail("thresholds must be positive (a storm needs at least 2 rounds)")
    require_paths(args.inputs)
    thresholds = Thresholds(storm_rounds=args.storm_rounds, storm_window_s=args.storm_window,
                            eager_pause_ms=args.eager_pause * 1000, stuck_rounds=args.stuck_rounds)
    # standard input cannot be read twice: collected and sorted from the start
    report = read_report(args.inputs, thresholds, ordered="-" not in args.inputs, jobs=args.jobs)
    if args.output:
        from kafka_meta.report.html import write_html

        try:
            write_html(report, args.output)
        except OSError as e:
            return fail(f"cannot write {args.output}: {e}")
        print(f"kafka-meta report: wrote {args.output}", file=sys.stderr)
    if args.format == "json":
        emit_json_document(report.to_json())
    else:
        render_terminal(report)
    return OK if report.read_everything else PROBLEM  # what could not be read is listed in the report


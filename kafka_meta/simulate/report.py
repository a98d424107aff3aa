"""What a simulation reports: every round, each member's versions and actions, and the invariants."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kafka_meta.negotiation.outcomes import JavaFailure


@dataclass
class MemberRow:
    """One member in one round."""

    member: str
    release: str
    protocol: str = ""
    sent: str = ""          # the version(s) it subscribed with
    received: str = ""      # what its assignment said
    action: str = ""
    owned: str = ""
    leader: bool = False
    callbacks: str = ""     # the ConsumerRebalanceListener calls of this round, in order


@dataclass
class Round:
    number: int
    generation: int
    trigger: str
    leader: str | None
    assignor: str | None
    rows: list[MemberRow] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    rebalance: bool = True      # False: a static member's rejoin completed without a rebalance


@dataclass
class SimulationReport:
    kind: str
    succession: str = "oldest"      # the coordinator's leader succession rule (coordinator.Succession)
    rounds: list[Round] = field(default_factory=list)
    failures: dict[str, JavaFailure] = field(default_factory=dict)   # the first failure of each member, kept
    # even when a later bounce restarts it
    violations: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    converged: bool = False
    convergence: str = ""
    final_versions: dict[str, str] = field(default_factory=dict)
    rebalances_per_step: list[tuple[str, int]] = field(default_factory=list)
    step_rounds: list[tuple[int, int]] = field(default_factory=list)   # per step ("start" first): rounds[a:b]
    topics: int = 1             # how many topics the scenario has (the table names them when there are several)

    @property
    def ok(self) -> bool:
        return not self.failures and not self.violations and not self.stuck and self.converged

    @property
    def rebalances(self) -> int:
        return sum(1 for r in self.rounds if r.rebalance)

    def problems(self) -> list[str]:
        out = [f"{m} failed: {f}" for m, f in self.failures.items()]
        out += self.violations + self.stuck
        if not self.converged:
            out.append(f"not converged: {self.convergence}")
        return out

    def leaders(self) -> list[tuple[int, str, str]]:
        """(round, leader, the leader's release) for every round that had a leader."""
        return [(r.number, row.member, row.release) for r in self.rounds for row in r.rows if row.leader]

    def versions_by_round(self, member: str) -> list[str]:
        """The version(s) a member sent in every round it took part in."""
        return [row.sent for r in self.rounds for row in r.rows if row.member == member]


def render_table(report: SimulationReport) -> str:
    """The rounds as a plain-text table, then the verdict."""
    header = ("round", "gen", "trigger", "assignor", "member", "release", "proto", "sent", "received", "action",
              "owns", "callbacks")
    lines: list[tuple[str, ...]] = [header]
    for r in report.rounds:
        for i, row in enumerate(r.rows):
            name = f"{row.member}*" if row.leader else row.member
            first = i == 0
            lines.append((str(r.number) if first else "", str(r.generation) if first else "",
                          r.trigger if first else "", (r.assignor or "-") if first else "", name, row.release,
                          row.protocol, row.sent, row.received, row.action, row.owned,
                          _short_calls(row.callbacks, report.topics > 1)))
        for text in r.events + r.violations:
            lines.append(("!", text))
    widths = [max(len(line[i]) for line in lines if line[0] != "!") for i in range(len(header))]
    out = []
    for line in lines:
        if line[0] == "!":
            out.append(" " * (widths[0] + 2) + "! " + line[1])
            continue
        out.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
    out.append("")
    steps = len(report.rebalances_per_step)
    extra = sum(n - 1 for _, n in report.rebalances_per_step if n > 1)
    quiet = sum(1 for _, n in report.rebalances_per_step if n == 0)
    out.append(f"{report.rebalances} rebalance{'s' if report.rebalances != 1 else ''} for {steps} "
               f"step{'s' if steps != 1 else ''} (start, bounces, joins, leaves): {extra} extra"
               + (f", {quiet} without any (static members back in time)" if quiet else ""))
    out.append(f"final: {report.convergence}")
    out.append(f"leader succession: {report.succession} (the member the coordinator promotes when the leader leaves)")
    problems = report.problems()
    out.append("OK: invariants held, no member stuck, converged" if report.ok else "PROBLEMS:")
    out.extend(f"  - {p}" for p in problems)
    out.append("(* = leader)")
    return "\n".join(out)


def partitions_text(items: Iterable[tuple[str, int]], named: bool = False) -> str:
    """Partitions for the table: ``0,1,4`` in a one-topic scenario, ``audit-0,input-1`` when ``named``."""
    ordered = sorted(items)
    if named:
        return ",".join(f"{t}-{p}" for t, p in ordered)
    return ",".join(str(p) for _, p in ordered)


def _short_calls(text: str, named: bool) -> str:
    """Callbacks for the table: ``revoked(0,1) assigned(2)``, topics named when the scenario has several."""
    out = []
    for call in text.split():
        name, _, args = call.partition("(")
        short = name.removeprefix("onPartitions").lower()
        if args == "none)":
            out.append(f"{short}(-)")
            continue
        tps = [a.rsplit("-", 1) for a in args.rstrip(")").split(",")]
        out.append(f"{short}({partitions_text(((t, int(p)) for t, p in tps), named)})")
    return " ".join(out)

"""What a capture says about its groups: versions in use, upgrades in progress, ownership conflicts, and
the rebalance timeline (each group's rounds, what set them off, what moved) with its findings.

Pure Python over decoded records and exchanges, so the report reads the same whether Spark or a loop
decoded them.
"""

from kafka_meta.analysis.assemble import Timeline, build_timeline
from kafka_meta.analysis.findings import Finding, Thresholds
from kafka_meta.analysis.groups import GroupFacts, analyze_groups, newest_records
from kafka_meta.analysis.report import AnalysisReport, render_text
from kafka_meta.analysis.timeline import GroupTimeline, MemberRound, Round

__all__ = [
           "AnalysisReport",
           "Finding",
           "GroupFacts",
           "GroupTimeline",
           "MemberRound",
           "Round",
           "Thresholds",
           "Timeline",
           "analyze_groups",
           "build_timeline",
           "newest_records",
           "render_text",
]

"""What a capture says about its groups: versions in use, upgrades in progress, ownership conflicts.

Pure Python over decoded records, so the report reads the same whether Spark or a loop decoded them.
"""

from kafka_meta.analysis.groups import GroupFacts, analyze_groups, newest_records
from kafka_meta.analysis.report import Report, render_text

__all__ = ["GroupFacts", "Report", "analyze_groups", "newest_records", "render_text"]

"""Faces of the rebalance timeline: the terminal report (rich) and the self-contained HTML report (plotly).

They only draw what :mod:`kafka_meta.analysis` worked out; nothing here decides anything about a group.
"""

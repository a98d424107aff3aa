"""Future code in the simulator: instances bounced to code newer than any release, named by latest version.

Kafka's own version-probing system test (apache/kafka tests/kafkatest/tests/streams/streams_upgrade_test.py,
``test_version_probing_upgrade``) bounces three trunk instances, in a random order, to
``StreamsUpgradeTest.FutureStreamsPartitionAssignor`` (LATEST_SUPPORTED_VERSION + 1 = 12) and expects:
while old instances remain, the bounced one logs "Sent a version 12 subscription and got version 11 assignment
back (successful version probing) ..." and a follow-up rebalance; at the last bounce both others log "Sent a
version 11 subscription and group's latest commonly supported version is 12 (successful version probing and
end of rolling upgrade). Upgrading subscription metadata version to 12 ..." and a follow-up rebalance; the
three instances end every bounce on the same generation, and nobody upgrades to 12 early.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta.simulate import STREAMS, render_table, rolling_upgrade, simulate
from kafka_meta.simulate.future_bytes import decode_streams, encode_streams, leading_version

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.permutations(["m0", "m1", "m2"]), st.sampled_from(["3.9", "4.4"]))
def test_version_probing_upgrade_to_future_code(order, trunk):
    report = simulate(rolling_upgrade(STREAMS, trunk, "latest+1", members=3, orders=[order]))
    assert report.ok, render_table(report)
    bounces = [r for r in report.rounds if r.trigger.startswith("bounce")]
    assert len(bounces) == 3
    for i, bounce in enumerate(bounces):
        bounced = order[i]
        rows = {row.member: row for row in bounce.rows}
        follow_up = report.rounds[bounce.number]          # the round right after the bounce
        assert follow_up.trigger.startswith("rejoin")
        if i < 2:
            # the bounced instance probes with 12, gets 11 back and rejoins at 11; no one else moves to 12
            assert rows[bounced].sent == "v12" and rows[bounced].received == "v11/11"
            assert rows[bounced].action.startswith("downgrade -> v11")
            assert all(not row.action.startswith("upgrade") for row in bounce.rows + follow_up.rows)
        else:
            # end of the rolling upgrade: the two others learn that 12 is common and upgrade
            others = [row for row in bounce.rows if row.member != bounced]
            assert [row.received for row in others] == ["v11/12", "v11/12"]
            assert all(row.action.startswith("upgrade -> v12") for row in others)
        # the follow-up is the last rebalance of the bounce: one generation for everyone, no more rejoins
        assert {row.member for row in follow_up.rows} == {"m0", "m1", "m2"}
    assert report.rebalances == 1 + 3 * 2
    assert set(report.final_versions.values()) == {"v12"}


def test_latest_plus_two_probes_a_latest_plus_one_group():
    report = simulate(rolling_upgrade(STREAMS, "v12", "latest+2", members=2))
    assert report.ok and set(report.final_versions.values()) == {"v13"}
    assert report.rebalances == 1 + 2 * 2


def test_future_bytes_keep_the_leading_versions_and_read_back_for_future_code():
    fields = {"version": 12, "commonly_supported_version": 12, "active_tasks": [{"topic_group_id": 0, "partition": 3}],
              "err_code": 0, "next_rebalance_ms": 0}
    data = encode_streams("AssignmentInfo", fields, 12)
    assert leading_version(data) == 12 and data[4:8] == (12).to_bytes(4, "big")
    version, info = decode_streams("AssignmentInfo", data, reader_latest=12)
    assert version == 12 and [t.partition for t in info.active_tasks] == [3]
    sub = encode_streams("SubscriptionInfo", {"version": 12, "latest_supported_version": 12,
                                              "process_id": "00000000-0000-0000-0000-000000000001",
                                              "user_end_point": b"", "task_offset_sums": [], "unique_field": 1}, 12)
    version, reduced = decode_streams("SubscriptionInfo", sub, reader_latest=11)   # a 3.9 leader's view
    assert (version, reduced.version, reduced.latest_supported_version) == (12, 12, 12)

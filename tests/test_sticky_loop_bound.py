"""The sticky assignors on a group whose balancing Kafka never finishes: a clear error, found quickly.

The group is case 10,510 of the conformance generator for ``assignor sticky`` with seed 0 (the one that appears in
the recorded run of docs/conformance.md, "Groups no assignor finishes"): eight members with uneven subscriptions,
topics of 27 and 10 partitions on racks, and members claiming partitions they owned at older generations. Kafka's
``AbstractStickyAssignor`` moves the same partitions back and forth on it forever, and so would the project's
assignor if it did not notice that a balancing pass starts where an earlier one did.
"""

from __future__ import annotations

import pytest

from kafka_meta.cli.main import main
from kafka_meta.errors import KafkaMetaError
from kafka_meta.negotiation.assignor_facts import Member
from kafka_meta.negotiation.assignors import cooperative_sticky_assign, sticky_assign
from kafka_meta.negotiation.outcomes import AssignmentNeverEnds
from kafka_meta.testing.conformance import assignments, deadline
from kafka_meta.testing.conformance.client_groups import ClientGroup, ClientMember
from kafka_meta.testing.conformance.peer import Answer
from kafka_meta.testing.conformance.results import Result

# each partition's replica racks, one word per partition: "bcad" is rack-b, rack-c, rack-a, rack-d; "-" none
_RACKS = {
    "topic-a": "bcad bcda dc c c cd dac cdba acd b da - dab - acbd ba cb dbac dab acdb cdba ad a d badc bacd cda",
    "topic-b": "cab bd - cb c adcb bcda dc da bda",
}
_MEMBERS = [  # id, subscription, owned, subscription's generation, user data's generation, rack
    ("consumer-app-5-8b3aee92-a253-463f-ae0b-a0c2f2c066e2", ["topic-b"],
     "a0 a2 a26 a21 a22 a3 a1 a17 b2", 13, 13, "rack-c"),
    ("consumer-app-2-515d6a31-9d85-4674-9feb-d74cc1a94963", ["topic-b"], "b9 a6 a9 b7 a7 a11 b0 a15", 13, 13, ""),
    ("consumer-app-3-d8a8969c-8b58-4502-9bf9-399a0c178056", ["topic-a", "topic-b"], "", 13, 13, "rack-a"),
    ("consumer-app-4-58e6b31c-d595-4529-b08a-ab24c9f9fb12", ["topic-a"], "", -1, 13, "rack-z"),
    ("consumer-app-0-0036bb8f-5213-4ea4-8163-cc36e1f31c7e", ["topic-a"], "", -1, None, "rack-z"),
    ("consumer-app-7-5049f2ad-1d96-4ebe-9859-f7cecbfbfc46", ["topic-a"], "a23 a20 a24 b6 a16 a14 b1 a25", 13, 13, None),
    ("consumer-app-1-103ef75d-a906-4854-8bcf-f7632ae5de72", ["topic-a"], "d0 b3 b4 a10 a5 a8 b2", -1, -1, "rack-z"),
    ("consumer-app-6-726dcadd-2efe-4bf8-8bef-a1aec7a66af4", ["topic-b"], "a18 b8 a13 a12 a4 b5 a25", -1, 13, "rack-a"),
]
_TOPIC_OF = {"a": "topic-a", "b": "topic-b", "d": "deleted-0"}


def _partitions(text: str) -> list[tuple[str, int]]:
    return [(_TOPIC_OF[word[0]], int(word[1:])) for word in text.split()]


def stalling_group() -> ClientGroup:
    """The group as the conformance run draws it (both sides' forms of it come from here)."""
    racks = {(topic, p): [f"rack-{r}" for r in word.strip("-")]
             for topic, words in _RACKS.items() for p, word in enumerate(words.split())}
    members = [ClientMember(mid, topics, _partitions(owned), subscription, user_data, None, rack)
               for mid, topics, owned, subscription, user_data, rack in _MEMBERS]
    return ClientGroup({"topic-a": 27, "topic-b": 10}, racks, members)


def _stall(assign=sticky_assign):
    group = stalling_group()
    return assign(group.topics, group.member_facts("sticky"), group.racks)


@pytest.mark.parametrize("assign", [sticky_assign, cooperative_sticky_assign])
def test_the_stalling_group_raises_instead_of_looping(assign):
    with pytest.raises(AssignmentNeverEnds) as raised:
        _stall(assign)
    error = raised.value
    assert isinstance(error, KafkaMetaError)
    assert (error.members, error.partitions) == (8, 37)
    assert str(error) == (
        "the sticky assignor's balancing loops without end on this group of 8 members and 37 partitions "
        "(Kafka's AbstractStickyAssignor does the same; a Java leader would never send its SyncGroup)")


def test_a_verb_reports_the_loop_in_one_line(capsys, monkeypatch):
    """No verb builds such a group from its own input (explain does not run the assignors, and the simulator
    gives every member the same subscription, which takes the other algorithm): the simulator's leader is handed
    the stalling group instead, to see the error reach the command line as every kafka_meta error does."""
    monkeypatch.setattr("kafka_meta.simulate.consumer.sticky_assign", lambda partitions, facts, racks=None: _stall())
    code = main(["simulate", "--kind", "consumer", "--from", "3.9", "--to", "3.9", "--members", "2",
                 "--assignors", "sticky,range"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("kafka-meta: the sticky assignor's balancing loops without end on this group of 8 members")
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_conformance_counts_the_loop_as_agreement_with_kafkas_timeout():
    """Kafka's side of the same group can only run out of time; the project's detected loop is shown the same way,
    so a run counts both not finishing as agreement."""
    [kind] = [k for k in assignments.kinds() if k.type == "assignor sticky"]
    result = Result(kind.type)
    assignments.check(kind, [stalling_group()], [Answer(ok=False, timeout=True)], result)
    assert (result.cases, result.identical, result.unfinished, result.differences) == (1, 0, 1, [])
    assert deadline.UNFINISHED == "no result in time"


# case 3,411 of the same generator: uneven subscriptions, members of older generations that take partitions back,
# three balancing passes; the assignment as the project gave it before the loop was watched for (and as Kafka does)
_UNEVEN = [
    Member("consumer-app-4-e065b41f-bbdd-4d9e-bf64-bbfdad6243ee", frozenset({"topic-a"}),
           (("topic-b", 8), ("topic-b", 11), ("topic-a", 0)), 16, "instance-026-4", None, -1),
    Member("consumer-app-1-b46470d1-734b-463c-b063-4d6051293bf2", frozenset({"topic-a", "topic-b"}),
           (), 16, "instance-041-1", None, 16),
    Member("consumer-app-2-90f49716-79de-4202-bfac-210c4660d8dd", frozenset({"topic-a", "topic-b"}),
           (("topic-b", 0), ("topic-b", 1)), -1, "instance-864-2", None, -1),
    Member("consumer-app-0-7d48c25d-9b22-49ec-bb76-05cb5b2fa13a", frozenset({"topic-a", "topic-b"}),
           (("topic-b", 10), ("topic-b", 6), ("topic-b", 3), ("topic-b", 9)), 16, "instance-299-0", None, -1),
    Member("consumer-app-3-eb7dddbd-61fd-4fe8-9951-70a6824ef58a", frozenset({"topic-a", "topic-b"}),
           (("topic-a", 1), ("topic-b", 7), ("topic-b", 2)), 14, "instance-241-3", None, 14),
]
_UNEVEN_ASSIGNED = {
    "consumer-app-1-b46470d1-734b-463c-b063-4d6051293bf2": [("topic-b", 4), ("topic-b", 5), ("topic-b", 8)],
    "consumer-app-2-90f49716-79de-4202-bfac-210c4660d8dd": [("topic-b", 0), ("topic-b", 1), ("topic-b", 11)],
    "consumer-app-3-eb7dddbd-61fd-4fe8-9951-70a6824ef58a": [("topic-b", 7), ("topic-b", 2), ("topic-b", 3)],
    "consumer-app-4-e065b41f-bbdd-4d9e-bf64-bbfdad6243ee": [("topic-a", 0), ("topic-a", 1)],
    "consumer-app-0-7d48c25d-9b22-49ec-bb76-05cb5b2fa13a": [("topic-b", 10), ("topic-b", 6), ("topic-b", 9)],
}


def test_a_group_whose_balancing_ends_is_assigned_as_before():
    result = sticky_assign({"topic-a": 2, "topic-b": 12}, _UNEVEN)
    assert result.assignment == _UNEVEN_ASSIGNED
    assert list(result.assignment) == list(_UNEVEN_ASSIGNED)  # the order of members too

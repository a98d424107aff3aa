"""watch's reasons speak Kafka, not the client library: kafka-python's own error classes, as its code raises
them, said as what they mean for the cluster watched."""

from __future__ import annotations

import pytest

kafka_errors = pytest.importorskip("kafka.errors")

from kafka_meta.live.client import Unreachable, _problem  # noqa: E402
from kafka_meta.live.reasons import SAID, said  # noqa: E402


def test_node_not_ready_is_the_broker_not_answering():
    verdict = _problem(kafka_errors.NodeNotReadyError(1), "h:9092")
    assert isinstance(verdict, Unreachable)
    assert str(verdict) == "h:9092: the broker does not answer (node 1)"
    assert "Error" not in str(verdict)


@pytest.mark.parametrize("name", sorted(SAID))
def test_every_class_named_is_kafka_python_s_and_said_without_its_name(name):
    """Each name in the table is a class kafka-python has (a renamed one would never match), and its text
    does not reach the operator as the class name."""
    kind = getattr(kafka_errors, name)
    told = said(kind("something went wrong"))
    assert told.startswith(SAID[name]) and name not in told and told.endswith("something went wrong")


def test_a_subclass_and_an_unknown_error():
    assert said(kafka_errors.RequestTimedOutError()).startswith("the broker did not answer a request in time")
    assert said(RuntimeError("boom")) == "the broker does not answer: boom"
    assert said(kafka_errors.MetadataEmptyBrokerList()) == "the cluster's metadata names no broker"

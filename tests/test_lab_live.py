"""The timeline held to Kafka as it runs now, not only as it ran when the fixtures were recorded: the `classic`
scenario recorded in this test session against the session's KRaft broker (real Java consumers joining,
leaving, one killed with SIGKILL), and the same checks as the committed recordings get."""

from __future__ import annotations

import pytest
import test_lab_timeline as held
from lab_recordings import fresh_recording

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def fresh(lab, kafka_broker, tmp_path_factory):
    return fresh_recording(lab, kafka_broker, tmp_path_factory)


@pytest.mark.parametrize("source", sorted(held.SOURCES))
def test_a_fresh_recordings_generations_members_and_ownership(fresh, source):
    held.test_generations_members_and_ownership_equal_what_the_clients_saw(fresh, source)


def test_a_fresh_recordings_causes_and_two_step_joins(fresh):
    held.test_the_timeline_says_why_each_round_started(fresh)
    held.check_two_step_joins(fresh)


@pytest.mark.parametrize("source", sorted(held.SOURCES))
def test_a_fresh_recordings_churn_is_not_a_storm(fresh, source):
    held.check_churn(fresh, source, held.CHURN["classic"])


@pytest.mark.parametrize("source", sorted(held.SOURCES))
def test_a_fresh_recordings_committed_offsets(fresh, source):
    held.test_committed_offsets_equal_what_kafkas_admin_client_read(fresh, source)

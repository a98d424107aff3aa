"""``kafka-meta watch``: the rebalance timeline of a running cluster, as it happens.

The same timeline ``kafka-meta report`` builds from captures and log directories, fed one
``__consumer_offsets`` record at a time by a consumer of the live topic, with what the coordinators say of each
group now (describe requests) beside it.

Sans-IO at the centre: :mod:`.core` takes records, group descriptions and connection news and gives back events
and snapshots, and never touches a socket, so it is tested with real record bytes and no broker.
:mod:`.describe` builds the describe requests and reads their answers with the project's own codec;
:mod:`.properties` reads a Java client properties file (``--command-config``); :mod:`.client` is the thin face
that talks to Kafka (kafka-python), :mod:`.session` the loop that joins them, :mod:`.view` and
:mod:`.report` what a person sees.
"""

from __future__ import annotations

from kafka_meta.live.core import LiveTimeline
from kafka_meta.live.events import DescribedMember, Event, GroupDescription, StreamsTasks

__all__ = ["DescribedMember", "Event", "GroupDescription", "LiveTimeline", "StreamsTasks"]

"""``kafka-meta watch``: the rebalance timeline and the transactions of a running cluster, as they happen.

The same timeline and transaction history ``kafka-meta report`` builds from captures and log directories, fed
one ``__consumer_offsets`` or ``__transaction_state`` record at a time by a consumer of the live topics, with
what the coordinators say of each group now (describe requests) beside it.

Sans-IO at the centre: :mod:`.core` takes records, group descriptions and connection news and gives back events
and snapshots, and never touches a socket, so it is tested with real record bytes and no broker.
:mod:`.catchup`, sans-IO too, says from positions and log ends how far behind the log end a watch is and when it
has caught up. :mod:`.describe` builds the describe requests and reads their answers with the project's own codec;
:mod:`.properties` reads a Java client properties file (``--command-config``); :mod:`.client` is the thin face
that talks to Kafka (kafka-python), :mod:`.session` the loop that joins them, :mod:`.view` and
:mod:`.report` what a person sees.
"""

from __future__ import annotations

from kafka_meta.live.core import LiveTimeline, OpenTransaction
from kafka_meta.live.events import DescribedMember, Event, GroupDescription, StreamsTasks

__all__ = ["DescribedMember", "Event", "GroupDescription", "LiveTimeline", "OpenTransaction", "StreamsTasks"]

"""``__share_group_state``: the share coordinator's log (KIP-932), a coordinator log (see
:mod:`kafka_meta.formats.family`) of two record types from ``schemas/share-state/``: 0 ``ShareSnapshot``
(a share-partition's whole delivery state) and 1 ``ShareUpdate`` (a change applied over the snapshot of the
same snapshot epoch). Both keys name the share-partition (group, topic id, partition); the values are
flexible from version 0. A deleted share-partition's records are deleted with tombstones.
"""

from __future__ import annotations

from kafka_meta.formats import family
from kafka_meta.formats.family import CoordinatorLog

TOPIC = "__share_group_state"
FAMILY = "share-state"
CURRENT = "4.4"  # the layouts of schemas/share-state: Kafka 4.4.0's
LOG = CoordinatorLog(TOPIC, FAMILY, CURRENT)


PLUGIN = family.coordinator_plugin(LOG)

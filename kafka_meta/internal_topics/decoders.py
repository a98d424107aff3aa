"""Which decoder reads which internal topic: the table the readers of logs look a topic up in
(``kafka-meta log --decode``, and whoever reads these topics' records)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka_meta.internal_topics import remote_log_metadata, share_state, transaction_log

__all__ = ["DECODERS", "TopicDecoder", "decoder_for"]


@dataclass(frozen=True)
class TopicDecoder:
    """A topic's record reader: ``decode(key, value, strict=...)`` gives a model, ``json(model)`` its JSON."""

    topic: str
    decode: Callable[..., Any]
    json: Callable[[Any], dict[str, Any]]

    def decode_json(self, key: bytes | None, value: bytes | None, *, strict: bool = False) -> dict[str, Any]:
        """One record's JSON, straight from its bytes."""
        return self.json(self.decode(key, value, strict=strict))


DECODERS: dict[str, TopicDecoder] = {
    module.TOPIC: TopicDecoder(module.TOPIC, module.decode_record, module.record_json)
    for module in (transaction_log, share_state, remote_log_metadata)
}


def decoder_for(topic: str | None) -> TopicDecoder | None:
    """The decoder of a topic's records, or None for a topic none of these decoders reads."""
    return DECODERS.get(topic) if topic is not None else None

"""Kafka's other internal topics, decoded record by record: ``__transaction_state``, ``__share_group_state``
and ``__remote_log_metadata``, one module each with the same face (``TOPIC``, ``decode_record``,
``record_json``), and :mod:`~kafka_meta.internal_topics.decoders`, the table of them by topic.

>>> record = transaction_log.decode_record(key_bytes, value_bytes)   # doctest: +SKIP
>>> record.record_name, record.value.transaction_state, transaction_log.record_json(record)
"""

from kafka_meta.internal_topics import remote_log_metadata, share_state, transaction_log
from kafka_meta.internal_topics.decoders import DECODERS, TopicDecoder, decoder_for

__all__ = ["DECODERS", "TopicDecoder", "decoder_for", "remote_log_metadata", "share_state", "transaction_log"]

"""kafka_meta: read and write, byte for byte, the metadata Kafka exchanges during group rebalances."""

from kafka_meta.api import decode, decode_plain, encode, get_format, load_specs, model, types
from kafka_meta.codec.probe import VersionProbe
from kafka_meta.errors import DecodeError, EncodeError, KafkaMetaError, SpecError, UnknownTypeError
from kafka_meta.models.base import KafkaModel, Message, UnknownTaggedField

__version__ = "0.1.0"

__all__ = [
    "DecodeError",
    "EncodeError",
    "KafkaMetaError",
    "KafkaModel",
    "Message",
    "SpecError",
    "UnknownTaggedField",
    "UnknownTypeError",
    "VersionProbe",
    "decode",
    "decode_plain",
    "encode",
    "get_format",
    "load_specs",
    "model",
    "types",
]

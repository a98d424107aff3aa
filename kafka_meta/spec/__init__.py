"""Kafka's JSON message-spec dialect: version ranges, the spec model and a validating loader."""

from kafka_meta.spec.loader import load_spec, load_spec_text, load_specs
from kafka_meta.spec.model import FieldSpec, FieldType, MessageSpec, StructSpec
from kafka_meta.spec.versions import Versions

__all__ = ["FieldSpec", "FieldType", "MessageSpec", "StructSpec", "Versions", "load_spec", "load_spec_text",
           "load_specs"]

"""The metadata-log record frame (``MetadataRecord``) and the readable view of FeatureLevelRecord.

In the ``__cluster_metadata`` log (and snapshots) every record is framed by Kafka's
``AbstractApiMessageSerde``: ``uvarint frameVersion (1) | uvarint apiKey | uvarint version | body``. The
frame is declared here from kafka_meta constructs; the body is whichever registered metadata-record
format has that apiKey (the bundled ``schemas/metadata`` specs, and any ``type: metadata`` spec loaded
with :func:`kafka_meta.load_specs`), read by :class:`~kafka_meta.codec.dispatch.Dispatch`. As in Java,
a frame version other than 1, an unknown apiKey, an apiKey or version beyond int16, and bytes after the
record are errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pydantic import AliasGenerator, ConfigDict, Field, SerializeAsAny, computed_field, model_validator
from pydantic.alias_generators import to_camel

from kafka_meta.codec.declared import DeclaredField, DeclaredFormat, DeclaredModels, DeclaredStruct
from kafka_meta.codec.dispatch import Dispatch
from kafka_meta.codec.format import MessageFormat, SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, LeadingVersion, read_number
from kafka_meta.codec.registry import USER_FAMILY
from kafka_meta.kraft.metadata_version import FEATURE_NAME, release_for
from kafka_meta.models.base import Message
from kafka_meta.models.values import int_type
from kafka_meta.spec.versions import Versions
from kafka_meta.wire.bindings import Bind
from kafka_meta.wire.checked import Bounded

TYPE_NAME = "MetadataRecord"
FRAME_VERSION = 1
FRAMING = LeadingVersion("uvarint", "frameVersion", ForwardPolicy.REFUSE)
VERSIONS = Versions(FRAME_VERSION, FRAME_VERSION)
API_KEY, RECORD_VERSION = "apiKey", "recordVersion"  # bindings the body is chosen by
SHORT = 0x7FFF
FRAME_FIELDS = ("frameVersion", API_KEY, RECORD_VERSION)  # the frame's three unsigned varints, in order

RecordFormats = Callable[[], Mapping[int, MessageFormat]]


class FeatureLevelBase(Message):
    """FeatureLevelRecord with the release name of a ``metadata.version`` level beside the wire fields."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def release(self) -> str | None:
        """For metadata.version, the release the level stands for (``21`` -> ``"3.9-IV0"``); else None."""
        return release_for(self.feature_level) if self.name == FEATURE_NAME else None  # type: ignore[attr-defined]


class MetadataRecord(Message):
    """One record of the KRaft metadata log: its frame (frame version, apiKey, record version) and the record.

    ``record`` is the decoded record, a model of the registered metadata-record type with that apiKey
    (``record.version`` is the record version); ``record_type`` names that type.
    """

    model_config = ConfigDict(alias_generator=AliasGenerator(serialization_alias=to_camel,
                                                             validation_alias=to_camel))
    record_formats: ClassVar[RecordFormats] = staticmethod(lambda: {})  # set when the format is registered

    frame_version: int_type("uint32") = FRAME_VERSION  # type: ignore[valid-type]
    api_key: int_type("int16") = 0  # type: ignore[valid-type]
    record_version: int_type("int16") = 0  # type: ignore[valid-type]
    record: SerializeAsAny[Message] | None = Field(default=None)

    @classmethod
    def polymorphic_fields(cls) -> dict[str, dict[str, type[Message]]]:
        return {"record": {fmt.name: fmt.model for _, fmt in sorted(cls.record_formats().items())}}

    @computed_field  # type: ignore[prop-decorator]
    @property
    def record_type(self) -> str | None:
        """The registered type name of the record (``FeatureLevelRecord``)."""
        return type(self.record).kafka_type if self.record is not None else None

    @model_validator(mode="before")
    @classmethod
    def _record_from_plain(cls, data: Any) -> Any:
        """A record given as plain values becomes the model of its apiKey; a model fills in a missing apiKey."""
        if not isinstance(data, dict):
            return data
        key_name = next((k for k in ("api_key", "apiKey") if k in data), None)
        record = data.get("record")
        formats = cls.record_formats()
        if isinstance(record, Message) and key_name is None:
            key = next((k for k, f in formats.items() if f.name == type(record).kafka_type), None)
            if key is not None:
                data = {**data, "api_key": key}
        elif isinstance(record, dict) and key_name is not None:
            fmt = formats.get(data[key_name])
            if fmt is None:
                raise ValueError(f"no registered metadata record has apiKey {data[key_name]}")
            data = {**data, "record": _validate_record(fmt, record)}
        return data

    @model_validator(mode="after")
    def _record_matches_key(self) -> MetadataRecord:
        if self.record is not None:
            fmt = type(self).record_formats().get(self.api_key)
            if fmt is None or type(self.record).kafka_type != fmt.name:
                raise ValueError(f"a {type(self.record).kafka_type} cannot be framed with apiKey {self.api_key}")
            self.record.__pydantic_private__["_version"] = self.record_version  # type: ignore[index]
        return self


def _validate_record(fmt: MessageFormat, record: dict[str, Any]) -> Message:
    from kafka_meta.models.factory import from_plain

    return from_plain(fmt.model, record)  # type: ignore[return-value]


METADATA_FAMILY = "metadata"  # the family of the metadata log's record bodies (schemas/metadata)


def metadata_record_formats(registry: Any, family: str = METADATA_FAMILY) -> RecordFormats:
    """apiKey -> format for every metadata-record spec of ``family`` in ``registry`` and, for the metadata log's own
    family, any ``type: metadata`` spec loaded with :func:`kafka_meta.load_specs` (the bundled ones win over loaded
    ones: a newer Kafka's record types); rebuilt only when the registry changes.

    Why by family: records of another topic framed the same way (``__remote_log_metadata``'s, ``type: metadata`` in
    Kafka's specs, with apiKeys 0-3 that are also ``__cluster_metadata``'s) must never be taken for the metadata
    log's, nor the metadata log's for theirs, whatever registry holds them."""
    cache: dict[str, Any] = {"generation": None, "table": {}}
    families = (family, USER_FAMILY) if family == METADATA_FAMILY else (family,)

    def table() -> Mapping[int, MessageFormat]:
        if cache["generation"] != registry.generation:
            out: dict[int, MessageFormat] = {}
            for fmt in sorted(registry.formats(), key=lambda f: f.family != family):
                spec = getattr(fmt, "spec", None)
                if (isinstance(fmt, SpecFormat) and fmt.family in families and spec.type == "metadata"
                        and spec.api_key is not None):
                    out.setdefault(spec.api_key, fmt)
            cache["generation"], cache["table"] = registry.generation, out
        return cache["table"]  # type: ignore[no-any-return]

    return table


def read_frame(value: bytes, type_name: str = TYPE_NAME) -> tuple[int, int, int]:
    """The frame version, apiKey and record version at the start of a record's value, read as the format reads
    them (Kafka's ``readUnsignedVarint``): what a reader looks at to choose before the body is read."""
    frame_version, at = read_number("uvarint", value, 0, FRAME_FIELDS[0], type_name)
    api_key, at = read_number("uvarint", value, at, FRAME_FIELDS[1], type_name)
    record_version, _ = read_number("uvarint", value, at, FRAME_FIELDS[2], type_name)
    return frame_version, api_key, record_version


def metadata_record_format(record_formats: RecordFormats) -> DeclaredFormat:
    root = DeclaredStruct(TYPE_NAME, TYPE_NAME, [
        DeclaredField("frame_version", "frameVersion", VERSIONS, lambda v: FRAMING.field_construct("frameVersion", v),
                      FRAME_VERSION, "uint32"),
        DeclaredField("api_key", "apiKey", VERSIONS,
                      lambda v: Bind(Bounded("uvarint", 0, SHORT, "Kafka reads an apiKey as an int16"), API_KEY), 0),
        DeclaredField("record_version", "recordVersion", VERSIONS,
                      lambda v: Bind(Bounded("uvarint", 0, SHORT, "Kafka reads a version as an int16"), RECORD_VERSION),
                      0),
        DeclaredField("record", "record", VERSIONS,
                      lambda v: Dispatch(API_KEY, RECORD_VERSION, record_formats, "metadata record apiKey"), None,
                      "record"),
    ])
    # a class per registry, knowing that registry's record formats
    model = type(TYPE_NAME, (MetadataRecord,), {"record_formats": staticmethod(record_formats),
                                                "__module__": MetadataRecord.__module__,
                                                "__doc__": MetadataRecord.__doc__})
    model.kafka_type = TYPE_NAME
    model.newest_version = FRAME_VERSION
    models = DeclaredModels(model, {TYPE_NAME: model})
    fmt = DeclaredFormat(TYPE_NAME, FRAMING, VERSIONS, root.at, models, family="metadata-log")
    fmt.keeps_trailing = False  # "Found N byte(s) of garbage after <apiKey>"
    return fmt

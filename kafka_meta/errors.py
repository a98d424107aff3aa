"""The exceptions kafka_meta raises. Nothing else escapes a decode or an encode."""

from __future__ import annotations


class KafkaMetaError(Exception):
    """Base class of every error kafka_meta raises on purpose."""


class DecodeError(KafkaMetaError, ValueError):
    """Bytes that cannot be read as the requested type.

    Carries what failed and where: the type, the version being read, the field path (Kafka JSON names,
    ``ownedPartitions[2].partitions``) and the byte offset within the input where the failing field starts.
    """

    def __init__(
        self,
        reason: str,
        *,
        type_name: str | None = None,
        version: int | None = None,
        path: str = "",
        offset: int | None = None,
    ) -> None:
        self.reason = reason
        self.type_name = type_name
        self.version = version
        self.path = path
        self.offset = offset
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.type_name:
            where.append(_typed(self.type_name, self.version))
        if self.path:
            where.append(f"field {self.path}")
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason

    def __reduce__(self):  # keep the structured fields when pickled (Spark workers ship errors back)
        return (_rebuild_decode_error, (self.reason, self.type_name, self.version, self.path, self.offset))


def _typed(type_name: str, version: int | None) -> str:
    """``"ConsumerProtocolSubscription v3"``; a number read where a version should be but that is none (damaged
    bytes give -1 or -30504) is left to the reason, which says it, never printed as "v-1"."""
    if version is None or version < 0:
        return type_name
    return f"{type_name} v{version}"


def _rebuild_decode_error(reason, type_name, version, path, offset) -> DecodeError:
    return DecodeError(reason, type_name=type_name, version=version, path=path, offset=offset)


class EncodeError(KafkaMetaError, ValueError):
    """A value that cannot be written at the requested version (out of range, null where not nullable,
    a non-default value for a field the version lacks, ...)."""

    def __init__(self, reason: str, *, type_name: str | None = None, version: int | None = None, path: str = ""):
        self.reason = reason
        self.type_name = type_name
        self.version = version
        self.path = path
        where = ", ".join(x for x in (_typed(type_name, version) if type_name else "", f"field {path}" if path else "")
                          if x)
        super().__init__(f"{where}: {reason}" if where else reason)


class SpecError(KafkaMetaError, ValueError):
    """A message spec that breaks a rule of Kafka's spec dialect; names the file, the field and the rule."""

    def __init__(self, reason: str, *, source: str = "", path: str = "", rule: str = "") -> None:
        self.reason = reason
        self.source = source
        self.path = path
        self.rule = rule
        where = ": ".join(x for x in (source, path) if x)
        tag = f" [{rule}]" if rule else ""
        super().__init__(f"{where}: {reason}{tag}" if where else f"{reason}{tag}")


class UnknownTypeError(KafkaMetaError, KeyError):
    """A type name that no registered format answers to."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InputError(KafkaMetaError, ValueError):
    """A file or argument a command cannot use at all (missing, a directory, binary where text is expected,
    the wrong format): said in one line naming the path and, where it helps, the byte offset, before any
    work starts."""

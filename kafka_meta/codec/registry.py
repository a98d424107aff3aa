"""The registry of decodable types: name -> format (every one with the same face, :class:`Format`).

It knows no format itself: the catalogue above (:mod:`kafka_meta.formats.catalogue`) adds a loader that
registers the bundled ones on first use, and users add their own specs (:func:`register_spec_files`).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path

from kafka_meta.codec.face import Format
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Framing, Unframed
from kafka_meta.errors import SpecError, UnknownTypeError
from kafka_meta.spec.loader import iter_spec_files, load_spec
from kafka_meta.spec.model import MessageSpec


def schema_root() -> Path:
    """Where the bundled specs live (``kafka_meta/schemas``, a link to the top-level ``schemas/``)."""
    return Path(str(resources.files("kafka_meta") / "schemas"))


class Registry:
    def __init__(self) -> None:
        self._formats: dict[str, Format] = {}
        # The registered format of a name, or None, without a Python call of its own: the hot path of every
        # decode (get() is the lookup that loads the bundled formats first and explains a missing name).
        self.find: Callable[[str], Format | None] = self._formats.get
        self._loaders: list[Callable[[Registry], None]] = []
        self._loaded = False
        self._lock = threading.RLock()
        self.generation = 0  # bumped by every registration, so derived lookups know when to rebuild

    def add_loader(self, loader: Callable[[Registry], None]) -> None:
        """Register a function that adds formats on first use (keeps ``import kafka_meta`` cheap)."""
        self._loaders.append(loader)

    def ensure_loaded(self) -> None:
        """Run the loaders once (every lookup does; registering user types after them keeps names unique)."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            for loader in self._loaders:
                loader(self)
            self._loaded = True

    def register(self, fmt: Format, replace: bool = False) -> Format:
        with self._lock:
            if fmt.name in self._formats and not replace:
                raise ValueError(f"a type named {fmt.name} is already registered")
            self._formats[fmt.name] = fmt
            self.generation += 1
        return fmt

    def get(self, name: str) -> Format:
        fmt = self._formats.get(name)
        if fmt is not None:  # the hot path: one dict lookup
            return fmt
        if not isinstance(name, str):  # None from a missing column or field: say so, not a TypeError deep down
            raise UnknownTypeError(f"a type is named by a string, not {type(name).__name__} {name!r}; "
                                   f"list them with kafka_meta.types() or `kafka-meta types`")
        self.ensure_loaded()
        fmt = self._formats.get(name)
        if fmt is None:
            close = difflib.get_close_matches(name, list(self._formats), n=3)
            hint = (f"; did you mean {', '.join(close)}?" if close
                    else "; list them with kafka_meta.types() or `kafka-meta types`")
            raise UnknownTypeError(f"unknown type {name!r}{hint}")
        return fmt

    def names(self) -> list[str]:
        self.ensure_loaded()
        return sorted(self._formats)

    def formats(self) -> Iterable[Format]:
        self.ensure_loaded()
        return list(self._formats.values())


def register_spec_files(registry: Registry, path: str | Path, framing: Framing | None = None,
                        replace: bool = False) -> list[str]:
    """Register user-supplied specs (e.g. Kafka's own files); unframed unless a framing is given."""
    registry.ensure_loaded()
    names = [register_spec(registry, load_spec(file), framing, replace) for file in iter_spec_files(path)]
    if not names:
        raise SpecError("no .json spec files found", source=str(path), rule="io")
    return names


def register_spec(registry: Registry, spec: MessageSpec, framing: Framing | None = None,
                  replace: bool = False) -> str:
    fmt = SpecFormat(spec, framing or Unframed(), family=USER_FAMILY)
    registry.register(fmt, replace=replace)
    return fmt.name


USER_FAMILY = "user"


# the registry of the public API; the catalogue (kafka_meta.formats.catalogue) registers the bundled formats
REGISTRY = Registry()

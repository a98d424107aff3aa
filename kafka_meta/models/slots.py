"""Pydantic's per-instance slots, filled cheaply for the models decoders build.

Every pydantic model instance has three slots besides its ``__dict__``: the fields set explicitly
(``__pydantic_fields_set__``), the extra fields (``__pydantic_extra__``) and the private attributes
(``__pydantic_private__``). A decoder builds one instance per struct it reads, and setting the four slots of
each costs as much as reading a small struct's bytes, so decoders set only what carries information:

- **The fields set is shared by a class's decoded instances** (:class:`FieldNames`). A decoder sets every
  field, so the set always holds every field name and pydantic's adding a name to it on assignment changes
  nothing. It refuses, from Python, any change that would alter it, so one instance's change never shows in
  another; its copies (``copy``, ``deepcopy``, pickling, ``model_copy``) are plain sets of their own.
- **The extra and private slots read None while unset** (:class:`NoneWhileUnset`, installed on the base of
  every model). For a model that forbids extra fields the extra slot only ever holds None, and so does the
  private slot of a model without private attributes; decoders leave them unset, and reading them gives the
  None pydantic would have stored. Setting them (pydantic does, when it builds or copies a model) stores
  into the slot as before, and a stored value is what is read.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Iterable
from typing import Any, NoReturn

from pydantic import BaseModel

# BaseModel's own slot descriptors (``BaseModel.__slots__``): what NoneWhileUnset reads and writes through.
EXTRA_SLOT = vars(BaseModel)["__pydantic_extra__"]
PRIVATE_SLOT = vars(BaseModel)["__pydantic_private__"]

_SHARED: weakref.WeakKeyDictionary[type, FieldNames] = weakref.WeakKeyDictionary()


class FieldNames(set[str]):
    """Every field name of a model class, shared by the instances decoders build (see the module)."""

    __slots__ = ()

    def add(self, name: str) -> None:
        """Accepts a name it holds, as pydantic's assignment gives; refuses any other."""
        if name not in self:
            self._refuse("add")

    def update(self, *others: Iterable[Any]) -> None:
        if any(name not in self for other in others for name in other):
            self._refuse("update")

    def _refuse(self, method: str) -> NoReturn:
        raise TypeError(f"the fields set of a decoded model is shared by the instances of its class that decoders "
                        f"built, so {method}() cannot change it; copy the model (model_copy) or the set first")

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)

    def __reduce__(self) -> tuple[type, tuple[list[str]]]:
        return set, (list(self),)


def _refusing(method: str) -> Any:
    def refuse(self: FieldNames, *args: Any) -> NoReturn:
        self._refuse(method)

    refuse.__name__ = method
    refuse.__doc__ = f"Refused: {method} would change every decoded instance's fields set."
    return refuse


for _method in ("discard", "remove", "pop", "clear", "difference_update", "intersection_update",
                "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__"):
    setattr(FieldNames, _method, _refusing(_method))


def shared_field_names(cls: type[BaseModel]) -> FieldNames:
    """The one :class:`FieldNames` of ``cls``: every name in ``cls.model_fields``."""
    names = _SHARED.get(cls)
    if names is None:
        names = _SHARED[cls] = FieldNames(cls.model_fields)
    return names


class NoneWhileUnset(property):
    """One of BaseModel's slots, read as None while nothing was stored in it (see the module). A property:
    storing and deleting call the slot's own C setter, so pydantic building a model pays no Python call."""

    def __init__(self, slot: Any) -> None:
        read = slot.__get__

        def read_or_none(instance: Any) -> Any:
            try:
                return read(instance)
            except AttributeError:
                return None

        super().__init__(read_or_none, slot.__set__, slot.__delete__, f"pydantic's {slot.__name__}, None while unset")


def may_leave_extra_unset(cls: type[BaseModel]) -> bool:
    """Whether a decoder may leave ``cls``'s extra slot unset: it forbids or ignores extra fields (so the slot
    would hold None) and reads the slot through :class:`NoneWhileUnset`."""
    return (cls.model_config.get("extra") != "allow"
            and isinstance(inspect.getattr_static(cls, "__pydantic_extra__", None), NoneWhileUnset))


def may_leave_private_unset(cls: type[BaseModel]) -> bool:
    """Whether a decoder may leave ``cls``'s private slot unset: it has no private attributes (so the slot
    would hold None) and reads the slot through :class:`NoneWhileUnset`."""
    return (not cls.__private_attributes__
            and isinstance(inspect.getattr_static(cls, "__pydantic_private__", None), NoneWhileUnset))


"""Strict conversion between frozen dataclasses and JSON-compatible data.

One mechanism for every plain-data contract of gpucheck (the snapshot, benchmark results,
memory plans): ``to_data`` turns a dataclass tree into dicts, lists and scalars;
``from_data`` rebuilds it, rejecting unknown keys, missing keys and wrong types with the
path of the offending value, so a broken file becomes one clear line instead of a traceback.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, Union

T = TypeVar("T")


class DecodeError(ValueError):
    """The data does not have the shape of the target type; ``path`` says where."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or '<root>'}: {problem}")
        self.path = path
        self.problem = problem


def to_data(obj: object) -> Any:
    """Return ``obj`` as JSON-compatible data (dataclasses become dicts, tuples lists)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_data(item) for item in obj]
    if isinstance(obj, Mapping):
        return {str(key): to_data(value) for key, value in obj.items()}
    return obj


def from_data(cls: type[T], data: object, path: str = "") -> T:
    """Build an instance of the dataclass ``cls`` from ``data``; raise DecodeError if it does not fit."""
    return typing.cast(T, _decode(cls, data, path))


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


def _decode(tp: Any, data: object, path: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return _plain_json(data, path)
    if origin in (Union, types.UnionType):
        options = typing.get_args(tp)
        if data is None and type(None) in options:
            return None
        non_none = [option for option in options if option is not type(None)]
        errors: list[DecodeError] = []
        for option in non_none:
            try:
                return _decode(option, data, path)
            except DecodeError as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        raise DecodeError(path, f"unexpected {_type_name(data)}")
    if origin is typing.Literal:
        if data not in typing.get_args(tp):
            allowed = ", ".join(repr(a) for a in typing.get_args(tp))
            raise DecodeError(path, f"expected one of {allowed}, got {data!r}")
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise DecodeError(path, f"expected an array, got {_type_name(data)}")
        (item_type, _ellipsis) = typing.get_args(tp)
        return tuple(_decode(item_type, item, f"{path}[{i}]") for i, item in enumerate(data))
    if origin is dict:
        if not isinstance(data, dict):
            raise DecodeError(path, f"expected an object, got {_type_name(data)}")
        _key_type, value_type = typing.get_args(tp)
        return {
            str(key): _decode(value_type, value, f"{path}.{key}" if path else str(key))
            for key, value in data.items()
        }
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _decode_dataclass(tp, data, path)
    if tp is bool:
        if not isinstance(data, bool):
            raise DecodeError(path, f"expected a boolean, got {_type_name(data)}")
        return data
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise DecodeError(path, f"expected an integer, got {_type_name(data)}")
        return data
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise DecodeError(path, f"expected a number, got {_type_name(data)}")
        return float(data)
    if tp is str:
        if not isinstance(data, str):
            raise DecodeError(path, f"expected a string, got {_type_name(data)}")
        return data
    raise TypeError(f"gpucheck._codec cannot decode {tp!r}")  # a programming error


def _decode_dataclass(cls: type, data: object, path: str) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(path, f"expected an object, got {_type_name(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise DecodeError(path, f"unknown key {unknown[0]!r}")
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for name, field in fields.items():
        child = f"{path}.{name}" if path else name
        if name not in data:
            has_default = (
                field.default is not dataclasses.MISSING
                or field.default_factory is not dataclasses.MISSING
            )
            if has_default:
                continue
            raise DecodeError(child, "missing")
        values[name] = _decode(hints[name], data[name], child)
    return cls(**values)


def _plain_json(data: object, path: str) -> object:
    """Accept any JSON value (used for verbatim fields such as TensorFlow's build info)."""
    if data is None or isinstance(data, (str, bool, int, float)):
        return data
    if isinstance(data, list):
        return [_plain_json(item, f"{path}[{i}]") for i, item in enumerate(data)]
    if isinstance(data, dict):
        return {str(k): _plain_json(v, f"{path}.{k}") for k, v in data.items()}
    raise DecodeError(path, f"not a JSON value: {_type_name(data)}")

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
from collections.abc import Iterable, Mapping
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
    try:
        return typing.cast(T, _decoder(cls)(data))
    except _Mismatch as exc:
        raise DecodeError(_join(path, reversed(exc.segments)), exc.problem) from None


# Decoding is compiled once per type into a closure (a fleet reads thousands of snapshots), and
# the path of a bad value is put together only when there is one: each container adds its
# segment to the mismatch on the way out.


class _Mismatch(Exception):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.segments: list[str | int] = []
        """Innermost first: a key, or an array index."""


def _join(base: str, segments: typing.Iterable[str | int]) -> str:
    path = base
    for segment in segments:
        if isinstance(segment, int):
            path = f"{path}[{segment}]"
        else:
            path = f"{path}.{segment}" if path else segment
    return path


Decoder = typing.Callable[[object], Any]
_DECODERS: dict[Any, Decoder] = {}


def _decoder(tp: Any) -> Decoder:
    decoder = _DECODERS.get(tp)
    if decoder is None:
        decoder = _DECODERS[tp] = _compile(tp)
    return decoder


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


def _compile(tp: Any) -> Decoder:
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return _plain_json
    if origin in (Union, types.UnionType):
        return _union(typing.get_args(tp))
    if origin is typing.Literal:
        allowed = typing.get_args(tp)

        def literal(data: object) -> Any:
            if data not in allowed:
                shown = ", ".join(repr(a) for a in allowed)
                raise _Mismatch(f"expected one of {shown}, got {data!r}")
            return data

        return literal
    if origin is tuple:
        return _sequence(typing.get_args(tp)[0])
    if origin is dict:
        return _mapping(typing.get_args(tp)[1])
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _dataclass(tp)
    if tp in _SCALARS:
        return _SCALARS[tp]
    raise TypeError(f"tf_gpucheck._codec cannot decode {tp!r}")  # a programming error


def _union(options: tuple[Any, ...]) -> Decoder:
    nullable = type(None) in options
    non_none = [option for option in options if option is not type(None)]

    def union(data: object) -> Any:
        if data is None and nullable:
            return None
        errors: list[_Mismatch] = []
        for option in non_none:
            try:
                return _decoder(option)(data)
            except _Mismatch as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        raise _Mismatch(f"unexpected {_type_name(data)}")

    return union


def _each(item: Decoder, pairs: Iterable[tuple[int | str, object]]) -> list[tuple[int | str, Any]]:
    """Each value decoded, with its index or key; a mismatch says where it is."""
    out = []
    for where, value in pairs:
        try:
            out.append((where, item(value)))
        except _Mismatch as exc:
            exc.segments.append(where)
            raise
    return out


def _sequence(item_type: Any) -> Decoder:
    def sequence(data: object) -> Any:
        if not isinstance(data, list):
            raise _Mismatch(f"expected an array, got {_type_name(data)}")
        return tuple(v for _, v in _each(_decoder(item_type), enumerate(data)))

    return sequence


def _mapping(value_type: Any) -> Decoder:
    def mapping(data: object) -> Any:
        if not isinstance(data, dict):
            raise _Mismatch(f"expected an object, got {_type_name(data)}")
        pairs = ((str(k), v) for k, v in data.items())
        return dict(_each(_decoder(value_type), pairs))

    return mapping


def _dataclass(cls: type) -> Decoder:
    hints = typing.get_type_hints(cls)
    fields = [
        (
            f.name,
            hints[f.name],
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
    ]
    names = frozenset(name for name, _hint, _default in fields)

    def dataclass(data: object) -> Any:
        if not isinstance(data, dict):
            raise _Mismatch(f"expected an object, got {_type_name(data)}")
        if not names.issuperset(data):
            unknown = sorted(set(data) - names)
            raise _Mismatch(f"unknown key {unknown[0]!r}")
        values: dict[str, Any] = {}
        for name, hint, has_default in fields:
            if name not in data:
                if has_default:
                    continue
                missing = _Mismatch("missing")
                missing.segments.append(name)
                raise missing
            values[name] = _each(_decoder(hint), [(name, data[name])])[0][1]
        return cls(**values)

    return dataclass


def _bool(data: object) -> Any:
    if not isinstance(data, bool):
        raise _Mismatch(f"expected a boolean, got {_type_name(data)}")
    return data


def _int(data: object) -> Any:
    if isinstance(data, bool) or not isinstance(data, int):
        raise _Mismatch(f"expected an integer, got {_type_name(data)}")
    return data


def _float(data: object) -> Any:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise _Mismatch(f"expected a number, got {_type_name(data)}")
    return float(data)


def _str(data: object) -> Any:
    if not isinstance(data, str):
        raise _Mismatch(f"expected a string, got {_type_name(data)}")
    return data


_SCALARS: dict[Any, Decoder] = {bool: _bool, int: _int, float: _float, str: _str}


def _plain_json(data: object) -> object:
    """Accept any JSON value (used for verbatim fields such as TensorFlow's build info)."""
    if data is None or isinstance(data, (str, bool, int, float)):
        return data
    if isinstance(data, list):
        return [v for _, v in _each(_plain_json, enumerate(data))]
    if isinstance(data, dict):
        return dict(_each(_plain_json, ((str(k), v) for k, v in data.items())))
    raise _Mismatch(f"not a JSON value: {_type_name(data)}")

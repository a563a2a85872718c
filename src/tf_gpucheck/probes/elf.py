"""What a shared library's ELF dynamic section says: its SONAME, the libraries it needs, and its
RPATH / RUNPATH, read from the file (no loading). The dynamic loader decides with exactly these
(ld.so(8)); ``readelf -d`` prints the same entries.
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
import sys
from array import array
from dataclasses import dataclass
from typing import BinaryIO

_DT_NEEDED, _DT_STRTAB, _DT_STRSZ, _DT_SONAME, _DT_RPATH, _DT_RUNPATH = 1, 5, 10, 14, 15, 29
_PT_LOAD, _PT_DYNAMIC = 1, 2


@dataclass(frozen=True)
class Dynamic:
    soname: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]
    dso_handles: tuple[str, ...] = ()
    """The ``Get<Name>DsoHandle`` functions this file's dynamic symbols name (defines or calls),
    ``<Name>`` only, each once in the order first seen: TensorFlow's dynamic-library loader
    (tsl ``dso_loader.cc``) has one such function per library it can open."""
    defines_handles: tuple[str, ...] | None = None
    """Of those, the ones this file *defines* (its dynamic symbol table gives them a section):
    the file whose code runs the loader, whose own RUNPATH the dynamic loader searches for what it
    opens (glibc's dlopen searches the calling object's DT_RUNPATH, ld.so(8)). ``None``: the
    symbol table was not read (not asked for, or the file has no section headers)."""


def read_dynamic(path: str, *, symbols: bool = False) -> Dynamic | None:
    """The dynamic section of the ELF file at ``path``; ``None`` when it is not one (or not
    readable). Reads only the headers, the dynamic section and its string table (TensorFlow's
    libraries are hundreds of megabytes); with ``symbols``, also the dynamic symbol table, to
    tell which ``Get<Name>DsoHandle`` functions the file defines.

    What a large file says is kept under the file's identity (its real path, size and
    modification time: a reinstall makes a new file) and read again only when that changes: its
    string table alone is megabytes to scan, and doctor is run again after every change."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return None
    if size < KEEP_FROM_BYTES:
        return _read(path, symbols)
    from tf_gpucheck import _cache

    def ask() -> str | None:
        found = _read(path, symbols)
        return json.dumps(None if found is None else dataclasses.asdict(found))

    kept = _cache.remembered("elf-dynamic", [_FORMAT, _cache.file_identity(path), symbols], ask)
    try:
        data = json.loads(kept) if kept is not None else None
        if data is None:
            return None
        defines = data["defines_handles"]
        return Dynamic(
            data["soname"],
            tuple(data["needed"]),
            tuple(data["rpath"]),
            tuple(data["runpath"]),
            tuple(data["dso_handles"]),
            None if defines is None else tuple(defines),
        )
    except (ValueError, TypeError, KeyError):
        return _read(path, symbols)


KEEP_FROM_BYTES = 4 * 1024 * 1024
"""Files from this size on are read once per identity (TensorFlow's own libraries)."""
_FORMAT = 1
"""The kept readings' form: raised when :class:`Dynamic` changes."""


def _read(path: str, symbols: bool) -> Dynamic | None:
    try:
        with open(path, "rb") as handle:
            return _parse(handle, symbols)
    except (OSError, struct.error, IndexError, ValueError):
        return None


def _read_at(handle: BinaryIO, offset: int, size: int) -> bytes:
    handle.seek(offset)
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("short read")
    return data


def _parse(handle: BinaryIO, symbols: bool = False) -> Dynamic | None:
    ident = handle.read(64)
    if ident[:4] != b"\x7fELF":
        return None
    wide = ident[4] == 2
    order = "<" if ident[5] == 1 else ">"
    phoff, phentsize, phnum = _header_table(ident, wide, order, sections=False)
    headers = _read_at(handle, phoff, phentsize * phnum)
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    dynamic: tuple[int, int] | None = None
    for index in range(phnum):
        at = index * phentsize
        if wide:
            kind, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(
                order + "IIQQQQ", headers, at
            )
        else:
            kind, offset, vaddr, _paddr, filesz = struct.unpack_from(order + "IIIII", headers, at)
        if kind == _PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif kind == _PT_DYNAMIC:
            dynamic = (offset, filesz)
    if dynamic is None:
        return None
    entry = struct.Struct(order + ("qQ" if wide else "iI"))
    section = _read_at(handle, dynamic[0], dynamic[1])
    tags: list[tuple[int, int]] = []
    for at in range(0, len(section) - entry.size + 1, entry.size):
        tag, value = entry.unpack_from(section, at)
        if tag == 0:
            break
        tags.append((tag, value))
    strtab = next((v for t, v in tags if t == _DT_STRTAB), None)
    strsz = next((v for t, v in tags if t == _DT_STRSZ), None)
    if strtab is None or strsz is None:
        return None
    base = next((off + strtab - va for va, off, sz in loads if va <= strtab < va + sz), strtab)
    strings = _read_at(handle, base, strsz)

    def text(offset: int) -> str:
        end = strings.index(b"\0", offset)
        return strings[offset:end].decode("utf-8", "replace")

    def paths(tag: int) -> tuple[str, ...]:
        out: list[str] = []
        for t, v in tags:
            if t == tag:
                out += [p for p in text(v).split(":") if p]
        return tuple(out)

    soname = next((text(v) for t, v in tags if t == _DT_SONAME), None)
    needed = tuple(text(v) for t, v in tags if t == _DT_NEEDED)
    names = _handle_names(strings)
    defined = _defined(handle, ident, wide, order, names) if symbols else None
    return Dynamic(
        soname,
        needed,
        paths(_DT_RPATH),
        paths(_DT_RUNPATH),
        tuple(dict.fromkeys(names.values())),
        None if defined is None else tuple(dict.fromkeys(names[o] for o in sorted(defined))),
    )


_SHT_DYNSYM = 11


def _defined(
    handle: BinaryIO, ident: bytes, wide: bool, order: str, names: dict[int, str]
) -> set[int] | None:
    """The string-table offsets in ``names`` that a symbol of ``.dynsym`` defined in this file
    (``st_shndx`` not ``SHN_UNDEF``) is named by; ``None`` without a section header table."""
    shoff, shentsize, shnum = _header_table(ident, wide, order, sections=True)
    if not shoff or not shnum:
        return None
    table = _read_at(handle, shoff, shentsize * shnum)
    section = struct.Struct(order + ("IIQQQQIIQQ" if wide else "IIIIIIIIII"))
    for index in range(shnum):
        fields = section.unpack_from(table, index * shentsize)
        if fields[1] != _SHT_DYNSYM:
            continue
        offset, size, entsize = fields[4], fields[5], fields[9]
        if not entsize:
            return None
        # Elf64_Sym: st_name (4), st_info, st_other, st_shndx (2), ...; Elf32_Sym: st_name (4),
        # st_value, st_size (4 each), st_info, st_other, st_shndx (2): read as 32-bit words,
        # st_name is word 0 and st_shndx half of word 1 (64-bit) or word 3 (32-bit)
        words = array("I")
        if entsize != (24 if wide else 16) or words.itemsize != 4:
            return None
        words.frombytes(_read_at(handle, offset, size - size % entsize))
        if (order == "<") != (sys.byteorder == "little"):
            words.byteswap()
        step = entsize // 4
        named = words[0::step]
        where = words[(1 if wide else 3) :: step]
        shift = 16 if order == "<" else 0
        return {
            n for n, w in zip(named, where, strict=True) if n in names and (w >> shift) & 0xFFFF
        }
    return None


def _header_table(ident: bytes, wide: bool, order: str, *, sections: bool) -> tuple[int, int, int]:
    """(offset, entry size, entry count) of the program header table, or with ``sections`` of
    the section header table, from the ELF header (``e_phoff``/``e_shoff`` ...)."""
    if wide:
        offset = struct.unpack_from(order + "Q", ident, 0x28 if sections else 0x20)[0]
        size, count = struct.unpack_from(order + "HH", ident, 0x3A if sections else 0x36)
    else:
        offset = struct.unpack_from(order + "I", ident, 0x20 if sections else 0x1C)[0]
        size, count = struct.unpack_from(order + "HH", ident, 0x2E if sections else 0x2A)
    return offset, size, count


_HANDLE = b"DsoHandle"


def dso_handles(strings: bytes) -> tuple[str, ...]:
    """``<Name>`` of every ``Get<Name>DsoHandle`` in a string table: the Itanium-mangled symbols
    of tsl's loader (``_ZN3tsl8internal9DsoLoader18GetCurandDsoHandleEv``, and the
    ``stream_executor`` namespace before TensorFlow 2.12) carry the name between ``Get`` and
    ``DsoHandle``; the length prefix before ``Get`` says where the identifier starts."""
    return tuple(dict.fromkeys(_handle_names(strings).values()))


def _handle_names(strings: bytes) -> dict[int, str]:
    """The offset of each string naming a ``Get<Name>DsoHandle`` function -> ``<Name>``."""
    found: dict[int, str] = {}
    at = strings.find(_HANDLE)
    while at != -1:
        start = at
        while start > 0 and chr(strings[start - 1]).isalpha():
            start -= 1
        word = strings[start:at]
        # the identifier starts at "Get" right after its mangled length ("18GetCurand...")
        index = word.find(b"Get")
        if index != -1 and start + index > 0 and chr(strings[start + index - 1]).isdigit():
            name = word[index + 3 :].decode("ascii", "replace")
            if name:
                found[strings.rfind(b"\0", 0, start) + 1] = name
        at = strings.find(_HANDLE, at + len(_HANDLE))
    return found


def expand(entries: tuple[str, ...], origin: str) -> list[str]:
    """RPATH/RUNPATH entries with ``$ORIGIN`` (``${ORIGIN}``) replaced by the library's folder,
    in order, each once."""
    out: list[str] = []
    for entry in entries:
        path = entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
        path = os.path.normpath(path)
        if path not in out:
            out.append(path)
    return out

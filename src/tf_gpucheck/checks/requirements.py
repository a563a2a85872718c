"""What a CI job demands of its runner (`doctor --require-gpu --min-gpus 2 ...`), as findings."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.checks import facts
from tf_gpucheck.checks.findings import Finding, fail, ok
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.installer import commands
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot

T = TypeVar("T")

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*$", re.IGNORECASE)
_UNITS = {
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}


def parse_size(flag: str, value: str) -> int:
    """ "8GiB", "500MB", "1073741824" -> bytes."""
    match = _SIZE.match(value)
    if not match:
        raise GpucheckError(
            f"{flag} {value!r}: expected a size such as 8GiB or 500MB", reference="size-invalid"
        )
    number, unit = float(match.group(1)), (match.group(2) or "B").lower()
    return int(number * _UNITS[unit])


def parse_capability(flag: str, value: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", value)
    if not match:
        raise GpucheckError(
            f"{flag} {value!r}: expected a compute capability such as 8.0",
            reference="capability-invalid",
        )
    return int(match.group(1)), int(match.group(2))


def parse_pattern(flag: str, value: str) -> SpecifierSet:
    """ "2.16.*" or ">=2.15,<2.17" -> a specifier set."""
    text = value.strip()
    if text and is_whole_number(text[0]):
        text = f"=={text}"
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise GpucheckError(
            f"{flag} {value!r}: expected a version pattern such as 2.16.* or >=2.15",
            reference="version-pattern-invalid",
        ) from None


def _given(parse: Callable[[str, str], T], flag: str, value: str | None) -> T | None:
    """``flag``'s value parsed, or ``None`` when the flag was not given."""
    return parse(flag, value) if value is not None else None


@dataclass(frozen=True)
class Requirements:
    require_gpu: bool = False
    min_gpus: int | None = None
    min_compute_capability: tuple[int, int] | None = None
    min_free_memory_bytes: int | None = None
    expect_tf: SpecifierSet | None = None
    expect_cuda: SpecifierSet | None = None

    @classmethod
    def from_flags(
        cls,
        *,
        require_gpu: bool = False,
        min_gpus: int | None = None,
        min_compute_capability: str | None = None,
        min_free_memory: str | None = None,
        expect_tf: str | None = None,
        expect_cuda: str | None = None,
    ) -> Requirements:
        """The requirements as the command line writes them; a malformed value is a GpucheckError."""
        return cls(
            require_gpu=require_gpu,
            min_gpus=min_gpus,
            min_compute_capability=_given(
                parse_capability, "--min-compute-capability", min_compute_capability
            ),
            min_free_memory_bytes=_given(parse_size, "--min-free-memory", min_free_memory),
            expect_tf=_given(parse_pattern, "--expect-tf", expect_tf),
            expect_cuda=_given(parse_pattern, "--expect-cuda", expect_cuda),
        )

    @property
    def any(self) -> bool:
        return bool(
            self.require_gpu
            or self.min_gpus
            or self.min_compute_capability
            or self.min_free_memory_bytes
            or self.expect_tf is not None
            or self.expect_cuda is not None
        )


def check_requirements(snapshot: Snapshot, matrix: Matrix, req: Requirements) -> list[Finding]:
    out: list[Finding] = []
    usable: list[object] = list(facts.tf_gpus(snapshot)) if facts.gpu_usable(snapshot) else []
    visible, _ = facts.visible_gpus(snapshot)
    who, none = "TensorFlow can use", "TensorFlow cannot use any"
    if not snapshot.tensorflow.probed:  # --no-tf: the GPUs CUDA would show TensorFlow
        usable = list(visible)
        who, none = "CUDA shows", "CUDA shows none (TensorFlow not imported)"
    if req.require_gpu or req.min_gpus:
        need = max(req.min_gpus or 1, 1)
        if len(usable) >= need:
            out.append(ok("require_gpus", f"{who} {len(usable)} GPU(s) (required: {need})"))
        elif not usable:
            out.append(
                fail(
                    "require_gpus",
                    "gpu_required",
                    f"a GPU is required and {none}",
                    fix=commands.rerun(snapshot, "doctor", "--verbose")
                    + "  # the failing checks above say why",
                )
            )
        else:
            out.append(
                fail(
                    "require_gpus",
                    "too_few_gpus",
                    f"{need} GPUs required, {who} {len(usable)}",
                )
            )
    if req.min_compute_capability:
        low = [
            g
            for g in visible
            if g.compute_capability
            and tuple(int(p) for p in g.compute_capability.split(".")) < req.min_compute_capability
        ]
        want = ".".join(map(str, req.min_compute_capability))
        if not visible:
            out.append(
                fail(
                    "require_compute_capability",
                    "compute_capability_below_minimum",
                    f"compute capability >= {want} required, no GPU is visible",
                )
            )
        elif low:
            names = ", ".join(f"GPU {g.index} {g.name} ({g.compute_capability})" for g in low)
            out.append(
                fail(
                    "require_compute_capability",
                    "compute_capability_below_minimum",
                    f"compute capability >= {want} required: {names}",
                )
            )
        else:
            out.append(
                ok(
                    "require_compute_capability",
                    f"every visible GPU has compute capability >= {want}",
                )
            )
    if req.min_free_memory_bytes:
        gib = req.min_free_memory_bytes / 1024**3
        short = [
            g
            for g in visible
            if g.memory_free_bytes is None or g.memory_free_bytes < req.min_free_memory_bytes
        ]
        if not visible or short:
            what = (
                ", ".join(
                    f"GPU {g.index}: {(g.memory_free_bytes or 0) / 1024**3:.1f} GiB free"
                    for g in short
                )
                or "no GPU is visible"
            )
            out.append(
                fail(
                    "require_free_memory",
                    "free_memory_below_minimum",
                    f"{gib:.1f} GiB free required: {what}",
                )
            )
        else:
            out.append(ok("require_free_memory", f"every visible GPU has {gib:.1f} GiB free"))
    expected = (
        ("expect_tf", "tf_version_unexpected", req.expect_tf, "TensorFlow", "(none)",
         facts.tf_version(snapshot)),
        ("expect_cuda", "cuda_version_unexpected", req.expect_cuda, "TensorFlow's CUDA",
         "(unknown)", facts.build_cuda(snapshot, matrix)),
    )  # fmt: skip
    for check, cause, pattern, what, unknown, have in expected:
        if pattern is None:
            continue
        if have and pattern.contains(have, prereleases=True):
            out.append(ok(check, f"{what} {have} matches {pattern}"))
        else:
            out.append(
                fail(
                    check, cause, f"{what} {have or unknown} does not match the expected {pattern}"
                )
            )
    return out

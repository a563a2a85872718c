"""GPU memory plans: growth, hard limits, virtual (logical) GPUs, logical CPUs and the allocator.

A plan is validated before anything runs (against the snapshot's GPUs when there is one),
then applied through tf.config: in this process by :func:`configure_memory` (for training
scripts), or in a fresh TensorFlow child by ``gpucheck configure-memory``, which also proves the
setting took (logical devices, an allocation on each, tf.config.experimental.get_memory_info).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, cast

from tf_gpucheck._children import memory_apply
from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.errors import ExitCode, GpucheckError
from tf_gpucheck.snapshot import Snapshot

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

ALLOCATORS = ("cuda_malloc_async",)
"""Values of TF_GPU_ALLOCATOR that TensorFlow accepts besides its default BFC allocator."""

# TensorFlow's own words (tensorflow/python/eager/context.py) for the plans it refuses.
TF_GROWTH_WITH_VIRTUAL = "Cannot set memory growth on device when virtual devices configured"


class PlanOptions(TypedDict, total=False):
    """What :func:`make_plan` takes, for the functions that pass it on."""

    growth: bool | None
    limit_mb: int | dict[int, int] | None
    virtual_mb: list[int] | tuple[int, ...] | None
    gpus: list[int] | tuple[int, ...] | None
    cpu_devices: int | None
    allocator: str | None


@dataclass(frozen=True)
class MemoryPlan:
    growth: bool | None = None
    limits_mb: dict[int, int] = field(default_factory=dict)
    """Hard limit per GPU index (MB); the same value for every selected GPU when given as one number."""
    limit_all_mb: int | None = None
    virtual_mb: tuple[int, ...] = ()
    """Split each selected GPU into logical GPUs of these sizes (MB)."""
    gpus: tuple[int, ...] | None = None
    """Only these GPU indices are visible to TensorFlow (None: all)."""
    cpu_devices: int | None = None
    allocator: str | None = None

    @property
    def touches_gpus(self) -> bool:
        return bool(
            self.growth is not None
            or self.limits_mb
            or self.limit_all_mb
            or self.virtual_mb
            or self.gpus is not None
            or self.allocator
        )

    def limits_for(self, indices: list[int]) -> dict[int, int]:
        if self.limit_all_mb is not None:
            return dict.fromkeys(indices, self.limit_all_mb)
        return dict(self.limits_mb)

    def options(self) -> PlanOptions:
        """The options of :func:`make_plan` that make this plan again, those it sets only."""
        limit = self.limit_all_mb if self.limit_all_mb is not None else self.limits_mb or None
        given: PlanOptions = {
            "growth": self.growth,
            "limit_mb": limit,
            "virtual_mb": list(self.virtual_mb) or None,
            "gpus": list(self.gpus) if self.gpus is not None else None,
            "cpu_devices": self.cpu_devices or None,
            "allocator": self.allocator,
        }
        return cast(PlanOptions, {k: v for k, v in given.items() if v is not None})

    def to_child(self, indices: list[int], *, release_probe: bool = False) -> dict[str, Any]:
        return {
            "growth": self.growth,
            "limits": {str(k): v for k, v in self.limits_for(indices).items()},
            "virtual_mb": list(self.virtual_mb),
            "gpus": list(self.gpus) if self.gpus is not None else None,
            "cpu_devices": self.cpu_devices,
            "allocator": self.allocator,
            "release_probe": release_probe,
        }


def _bad(message: str, hint: str | None = None) -> GpucheckError:
    return GpucheckError(message, reference="memory-plan-invalid", hint=hint)


def parse_int_list(flag: str, value: str) -> tuple[int, ...]:
    """ "2048,2048" -> (2048, 2048); anything else is one clear error."""
    parts = [p.strip() for p in value.split(",")]
    if not value.strip() or any(not p for p in parts):
        raise _bad(f"{flag} {value!r}: expected comma-separated numbers such as 2048,2048")
    numbers = []
    for part in parts:
        if not is_whole_number(part):
            raise _bad(f"{flag} {value!r}: {part!r} is not a whole number")
        numbers.append(int(part))
    return tuple(numbers)


def parse_limit(value: str) -> tuple[int | None, dict[int, int]]:
    """ "4096" (every GPU) or "0:4096,1:8192" (per GPU index)."""
    text = value.strip()
    if ":" not in text:
        if "," in text:
            raise _bad(
                f"--limit {value!r}: one number for every GPU, or index:MB pairs such as 0:4096,1:8192"
            )
        return parse_int_list("--limit", text)[0], {}
    limits: dict[int, int] = {}
    for part in text.split(","):
        index, _, mb = part.strip().partition(":")
        if not is_whole_number(index.strip()) or not is_whole_number(mb.strip()):
            raise _bad(f"--limit {value!r}: {part.strip()!r} is not index:MB (such as 0:4096)")
        if int(index) in limits:
            raise _bad(f"--limit {value!r}: GPU {index} is given twice")
        limits[int(index)] = int(mb)
    return None, limits


def plan_from_flags(
    *,
    growth: bool | None = None,
    limit: str | None = None,
    virtual: str | None = None,
    gpus: str | None = None,
    cpu_devices: int | None = None,
    allocator: str | None = None,
) -> MemoryPlan:
    """The plan as the command line writes it (``--limit 0:4096,1:8192``, ``--virtual 2048,2048``)."""
    limit_mb: int | dict[int, int] | None = None
    if limit is not None:
        every, per_gpu = parse_limit(limit)
        limit_mb = every if every is not None else per_gpu
    return make_plan(
        growth=growth,
        limit_mb=limit_mb,
        virtual_mb=parse_int_list("--virtual", virtual) if virtual is not None else None,
        gpus=parse_int_list("--gpus", gpus) if gpus is not None else None,
        cpu_devices=cpu_devices,
        allocator=allocator,
    )


def make_plan(
    *,
    growth: bool | None = None,
    limit_mb: int | dict[int, int] | None = None,
    virtual_mb: list[int] | tuple[int, ...] | None = None,
    gpus: list[int] | tuple[int, ...] | None = None,
    cpu_devices: int | None = None,
    allocator: str | None = None,
) -> MemoryPlan:
    """Build a plan and check it on its own terms (positive sizes, combinations TensorFlow refuses)."""
    limit_all = limit_mb if isinstance(limit_mb, int) else None
    limits = dict(limit_mb) if isinstance(limit_mb, dict) else {}
    virtual = tuple(virtual_mb or ())
    for name, number in [
        ("--limit", limit_all),
        *[(f"--limit for GPU {i}", mb) for i, mb in limits.items()],
        *[("--virtual", mb) for mb in virtual],
    ]:
        if number is not None and number <= 0:
            raise _bad(f"{name}: {number} MB is not a positive size")
    if cpu_devices is not None and cpu_devices < 1:
        raise _bad(f"--cpu-devices {cpu_devices}: needs at least 1")
    if gpus is not None and len(set(gpus)) != len(gpus):
        raise _bad(f"--gpus {','.join(map(str, gpus))}: an index is given twice")
    if allocator is not None and allocator not in ALLOCATORS:
        raise _bad(f"--allocator {allocator!r}: expected one of {', '.join(ALLOCATORS)}")
    if growth and (virtual or limit_all is not None or limits):
        raise _bad(
            f"memory growth cannot be combined with {'virtual devices' if virtual else 'a memory limit'}: "
            f"TensorFlow refuses it ({TF_GROWTH_WITH_VIRTUAL})",
            hint="a limit already stops TensorFlow from taking the whole GPU; drop --growth",
        )
    if virtual and (limit_all is not None or limits):
        raise _bad(
            "--virtual and --limit both size the GPU's logical devices: give one of them",
            hint="--virtual 4096 is one logical GPU limited to 4096 MB",
        )
    return MemoryPlan(
        growth=growth,
        limits_mb=limits,
        limit_all_mb=limit_all,
        virtual_mb=virtual,
        gpus=tuple(gpus) if gpus is not None else None,
        cpu_devices=cpu_devices,
        allocator=allocator,
    )


def validate_against(plan: MemoryPlan, snapshot: Snapshot) -> list[int]:
    """Check the plan against the machine's GPUs; return the GPU indices it applies to."""
    known = {gpu.index: gpu for gpu in snapshot.nvml.gpus}
    if plan.gpus is not None:
        missing = [i for i in plan.gpus if i not in known]
        if missing:
            have = ", ".join(map(str, sorted(known))) or "none"
            raise _bad(
                f"--gpus: GPU {missing[0]} does not exist (this machine has GPU indices: {have})"
            )
    selected = list(plan.gpus) if plan.gpus is not None else sorted(known)
    for index in plan.limits_mb:
        if index not in known:
            raise _bad(f"--limit: GPU {index} does not exist")
        if index not in selected:
            raise _bad(f"--limit: GPU {index} is not among --gpus {','.join(map(str, selected))}")
    mib = 1024 * 1024
    for index, mb in plan.limits_for(selected).items():
        total = known[index].memory_total_bytes
        if total is not None and mb * mib > total:
            raise _bad(f"--limit: {mb} MB is more than GPU {index}'s {total // mib} MB")
    if plan.virtual_mb:
        wanted = sum(plan.virtual_mb)
        for index in selected:
            total = known[index].memory_total_bytes
            if total is not None and wanted * mib > total:
                raise _bad(
                    f"--virtual: {wanted} MB in all is more than GPU {index}'s {total // mib} MB"
                )
    return selected


# --- in-process, for training scripts ----------------------------------------------------

_APPLIED: dict[str, MemoryPlan] = {}
"""The plan this process applied (one TensorFlow runtime per process, so at most one)."""


def configure_memory(**options: Unpack[PlanOptions]) -> MemoryPlan:
    """Apply a memory plan to this process's TensorFlow; call it before TensorFlow does anything.

    ``cpu_devices=N`` splits the CPU into N logical devices (run MirroredStrategy without GPUs).
    Calling it again with the same plan does nothing. Called after TensorFlow initialised its
    devices, it raises a :class:`GpucheckError` that says where to move the call.
    """
    plan = make_plan(**options)
    if _APPLIED.get("plan") == plan:
        return plan
    import tensorflow as tf

    indices = list(range(len(tf.config.list_physical_devices("GPU"))))
    try:
        memory_apply.apply(tf, plan.to_child(indices))
    except memory_apply.TooLate as exc:
        raise too_late_error(str(exc)) from None
    _APPLIED["plan"] = plan
    return plan


def too_late_error(detail: str) -> GpucheckError:
    return GpucheckError(
        "TensorFlow already initialised its devices, so the memory plan cannot be applied "
        f"(TensorFlow: {detail})",
        reference="memory-too-late",
        hint="call tf_gpucheck.configure_memory() right after `import tensorflow`, before any op, model, "
        "tf.config.list_logical_devices() or strategy is created",
        exit_code=ExitCode.FAILURE,
    )


# --- emitting the plan for a script or a shell ---------------------------------------------


def emit_python(plan: MemoryPlan) -> str:
    args = [f"{name}={value!r}" for name, value in plan.options().items()]
    lines = [
        "# at the top of your script, before TensorFlow creates anything:",
        "import tensorflow as tf",
        "import tf_gpucheck",
        f"tf_gpucheck.configure_memory({', '.join(args)})",
        "",
        "# or the same with tf.config alone:",
    ]
    if plan.allocator:
        lines += [
            "import os",
            f'os.environ["TF_GPU_ALLOCATOR"] = "{plan.allocator}"  # before importing tensorflow',
        ]
    lines.append("import tensorflow as tf")
    if plan.cpu_devices:
        lines += [
            'cpu = tf.config.list_physical_devices("CPU")[0]',
            f"tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * {plan.cpu_devices})",
        ]
    if plan.touches_gpus:
        lines.append('gpus = tf.config.list_physical_devices("GPU")')
        if plan.gpus is not None:
            lines += [
                f"gpus = [gpus[i] for i in {list(plan.gpus)!r}]",
                'tf.config.set_visible_devices(gpus, "GPU")',
            ]
        if plan.growth is not None:
            lines += [
                "for gpu in gpus:",
                f"    tf.config.experimental.set_memory_growth(gpu, {plan.growth})",
            ]
        if plan.virtual_mb:
            sizes = ", ".join(
                f"tf.config.LogicalDeviceConfiguration(memory_limit={mb})" for mb in plan.virtual_mb
            )
            lines += [
                "for gpu in gpus:",
                f"    tf.config.set_logical_device_configuration(gpu, [{sizes}])",
            ]
        if plan.limit_all_mb is not None:
            lines += [
                "for gpu in gpus:",
                "    tf.config.set_logical_device_configuration(",
                f"        gpu, [tf.config.LogicalDeviceConfiguration(memory_limit={plan.limit_all_mb})])",
            ]
        for index, mb in plan.limits_mb.items():
            position = plan.gpus.index(index) if plan.gpus is not None else index
            lines.append(
                f"tf.config.set_logical_device_configuration(gpus[{position}], "
                f"[tf.config.LogicalDeviceConfiguration(memory_limit={mb})])"
            )
    return "\n".join(lines) + "\n"


def emit_env(plan: MemoryPlan) -> tuple[dict[str, str], list[str]]:
    """The environment variables that express the plan, and the settings that have none."""
    env: dict[str, str] = {}
    missing: list[str] = []
    if plan.growth is not None:
        env["TF_FORCE_GPU_ALLOW_GROWTH"] = "true" if plan.growth else "false"
    if plan.allocator:
        env["TF_GPU_ALLOCATOR"] = plan.allocator
    if plan.gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, plan.gpus))
    if plan.limit_all_mb is not None or plan.limits_mb:
        missing.append(
            "memory limit (--limit): only tf.config.set_logical_device_configuration sets it"
        )
    if plan.virtual_mb:
        missing.append(
            "virtual GPUs (--virtual): only tf.config.set_logical_device_configuration creates them"
        )
    if plan.cpu_devices:
        missing.append(
            "logical CPUs (--cpu-devices): only tf.config.set_logical_device_configuration creates them"
        )
    return env, missing


# --- the command: apply and verify in a fresh child ------------------------------------------


@dataclass(frozen=True)
class DeviceCheck:
    name: str
    device_type: str
    allocated: bool
    current_bytes: int | None
    peak_bytes: int | None
    error: str | None


@dataclass(frozen=True)
class ReleaseProbe:
    device: str
    during_bytes: int
    after_delete_bytes: int


@dataclass(frozen=True)
class MemoryResult:
    applied: bool
    error: str | None
    too_late: bool
    devices: tuple[DeviceCheck, ...] = ()
    release_probe: tuple[ReleaseProbe, ...] | None = None


def apply_in_child(
    plan: MemoryPlan,
    indices: list[int],
    python: str | None,
    timeout_s: float,
    *,
    release_probe: bool = False,
) -> MemoryResult:
    from tf_gpucheck._children import script
    from tf_gpucheck._codec import from_data
    from tf_gpucheck._process import describe_exit, run_child
    from tf_gpucheck.probes.tensorflow import child_environment

    child_env = child_environment()
    child_env["TF_CPP_MIN_LOG_LEVEL"] = (
        "2"  # the verification, not the start-up log, is the point here
    )
    result = run_child(
        [
            python or sys.executable,
            script("memory_apply"),
            json.dumps(plan.to_child(indices, release_probe=release_probe)),
        ],
        timeout_s=timeout_s,
        env=child_env,
    )
    if result.timed_out or result.returncode != 0:
        return MemoryResult(
            False,
            f"the TensorFlow child {describe_exit(result.returncode)}: "
            f"{(result.stderr.strip().splitlines() or [''])[-1]}",
            False,
        )
    last = (result.stdout.strip().splitlines() or ["{}"])[-1]
    data = json.loads(last)
    data.setdefault("devices", [])
    return from_data(MemoryResult, data)

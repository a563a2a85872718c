"""Options shared by several commands, and the few helpers every command uses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tf_gpucheck.cli._app import environment
from tf_gpucheck.errors import GpucheckError

if TYPE_CHECKING:
    from tf_gpucheck.checks.requirements import Requirements
    from tf_gpucheck.snapshot import Snapshot
    from tf_gpucheck.target import Target


def option(flag: str, help: str, *, short: str | None = None, **more: Any) -> Any:
    """One option, for ``Annotated``: its flag (``--name``, or ``--name/--no-name`` for a switch),
    its help and its short flag; the rest (``metavar``, ``min``, ``show_default``) as
    :func:`typer.Option` takes it."""
    flags = (flag,) if short is None else (flag, short)
    return typer.Option(*flags, help=help, **more)


PythonOption = Annotated[
    str | None,
    option(
        "--python",
        "Diagnose this interpreter's environment (default: the active virtual environment, "
        "else gpucheck's own).",
        metavar="PATH",
    ),
]
TimeoutOption = Annotated[
    float,
    option(
        "--timeout", "Give up on the TensorFlow child after this long.", min=1.0, metavar="SECONDS"
    ),
]
RedactOption = Annotated[
    bool,
    option(
        "--redact", "Mask host and user names, home paths, GPU UUIDs and secret-looking values."
    ),
]
JsonOption = Annotated[bool, option("--json", "Print JSON on stdout (progress goes to stderr).")]
MatrixOption = Annotated[
    str | None,
    option("--matrix", "Use this compat_matrix.yaml instead of the shipped one.", metavar="FILE"),
]
CwdOption = Annotated[
    str | None,
    option(
        "--cwd",
        "The folder your program runs from (default: the current one): what a file there named "
        "tensorflow.py would hide.",
        metavar="DIR",
    ),
]
FromOption = Annotated[
    str | None,
    option(
        "--from",
        "Judge a snapshot written by `gpucheck detect --json` instead of probing.",
        metavar="FILE",
    ),
]


@contextmanager
def progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr while the probes run; silent when stderr is not a terminal."""
    from tf_gpucheck.render.console import make_console

    console = make_console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda _message: None
        return
    with console.status("probing") as status:
        yield status.update


@contextmanager
def bar_progress() -> Iterator[Callable[[str, str, int, int], None] | None]:
    """Progress bars on stderr, one per (device, task), for long runs; ``None`` when stderr is
    not a terminal."""
    from tf_gpucheck.render.console import make_console

    console = make_console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    from rich.progress import Progress, TaskID

    with Progress(console=console, transient=True) as bar:
        tasks: dict[tuple[str, str], TaskID] = {}

        def update(device: str, name: str, done: int, total: int) -> None:
            if (device, name) not in tasks:
                tasks[(device, name)] = bar.add_task(f"{device} {name}", total=total)
            bar.update(tasks[(device, name)], completed=done)

        yield update


def snapshot_for(
    ctx: typer.Context,
    source: str | None,
    python: str | None,
    timeout: float,
    *,
    tf: bool,
    redact: bool = False,
    cwd: str | None = None,
    on_partial: Callable[[Snapshot, Any], None] | None = None,
    installer: bool = True,
) -> Snapshot:
    """The snapshot a command judges: read from ``--from``, else probed live. ``on_partial``
    gets the snapshot without TensorFlow, and the probes, while TensorFlow still imports."""
    from tf_gpucheck.probes import collect_snapshot
    from tf_gpucheck.snapshot import load_snapshot

    if source is not None:
        snapshot = load_snapshot(source)
    else:
        probes = probes_for(ctx, python, cwd)
        with progress(True) as say:
            early = (lambda partial: on_partial(partial, probes)) if on_partial else None
            snapshot = collect_snapshot(
                probes,
                include_tensorflow=tf,
                timeout_s=timeout,
                progress=say,
                on_partial=early,
                include_installer=installer,
            )
    if redact:
        from tf_gpucheck.redact import redact as mask

        snapshot = mask(snapshot)
    return snapshot


def probes_for(ctx: typer.Context, python: str | None, cwd: str | None) -> Any:
    """The probes of the environment the command works on (``--python``, ``--cwd``): the live
    machine's, or a test's fakes (the context's environment)."""
    import dataclasses
    import os

    target = target_for(python)
    if cwd is not None:
        if not os.path.isdir(cwd):
            raise GpucheckError(
                f"--cwd {cwd!r}: no such folder", reference="cwd-missing", hint="give a folder"
            )
        target = dataclasses.replace(target, cwd=os.path.abspath(cwd))
    return environment(ctx).probes_factory(target)


def no_target_with_from(source: str | None, python: str | None, cwd: str | None) -> None:
    """``--from`` judges a recorded snapshot: an environment named too is a contradiction."""
    if source is not None and (python is not None or cwd is not None):
        given = "--python" if python is not None else "--cwd"
        raise GpucheckError(
            f"--from and {given} name two environments: --from judges the recorded snapshot, "
            f"{given} the live one",
            reference="options-conflict",
            hint="give one of them",
        )


def target_for(python: str | None) -> Target:
    """The environment a command works on: ``--python``, else the active one, else gpucheck's."""
    from tf_gpucheck.target import choose_target

    return choose_target(python)


def write_file(path: str, content: str) -> None:
    """Write an output file the user asked for (``--junit``, ``--output``)."""
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content)
    except OSError as exc:
        raise GpucheckError(
            f"cannot write {path!r}: {exc.strerror}", reference="output-unwritable"
        ) from None


# Options doctor, explain and fleet share, with one wording.
FormatOption = Annotated[
    str,
    option(
        "--format", "text, json or markdown (a report to paste into an issue).", metavar="FORMAT"
    ),
]
JunitOption = Annotated[
    str | None, option("--junit", "Also write a JUnit XML report.", metavar="FILE")
]
AllowCpuOption = Annotated[
    bool, option("--allow-cpu", "No usable GPU is a warning, not a failure (CPU-only runners).")
]
StrictOption = Annotated[bool, option("--strict", "Warnings fail too (exit 1).")]
RequireGpuOption = Annotated[bool, option("--require-gpu", "Fail unless TensorFlow can use a GPU.")]
MinGpusOption = Annotated[
    int | None, option("--min-gpus", "Fail unless TensorFlow can use N GPUs.", metavar="N", min=1)
]


def chosen_format(json_output: bool, output_format: str) -> str:
    """``--json`` or ``--format``: text, json or markdown; anything else is bad input."""
    if json_output and output_format not in ("text", "json"):
        raise GpucheckError(
            f"--json and --format {output_format} ask for two formats: give one",
            reference="options-conflict",
            hint="--json is --format json",
        )
    fmt = "json" if json_output else output_format
    if fmt not in ("text", "json", "markdown"):
        raise GpucheckError(
            f"--format {fmt!r}: expected text, json or markdown", reference="format-unknown"
        )
    return fmt


@dataclass(frozen=True)
class Gate:
    """What a CI gate asks beyond "no check failed" (``--allow-cpu``, ``--strict``, and the
    requirement flags ``--require-gpu``, ``--min-*``, ``--expect-*``): doctor's and fleet's."""

    allow_cpu: bool
    strict: bool
    requirements: Requirements


_REQUIREMENT_VALUES = (  # argument, flag, metavar, help: each takes one value, default none
    (
        "min_compute_capability",
        "--min-compute-capability",
        "X.Y",
        "Fail if a visible GPU is below X.Y.",
    ),
    (
        "min_free_memory",
        "--min-free-memory",
        "SIZE",
        "Fail if a visible GPU has less free memory (8GiB).",
    ),
    ("expect_tf", "--expect-tf", "PATTERN", 'Fail unless TensorFlow matches ("2.16.*").'),
    ("expect_cuda", "--expect-cuda", "PATTERN", 'Fail unless TensorFlow\'s CUDA matches ("12.*").'),
)
_GATE_FLAGS: tuple[tuple[str, Any, object], ...] = (
    ("allow_cpu", AllowCpuOption, False),
    ("strict", StrictOption, False),
    ("require_gpu", RequireGpuOption, False),
    ("min_gpus", MinGpusOption, None),
    *(
        (name, Annotated[str | None, option(flag, text, metavar=metavar)], None)
        for name, flag, metavar, text in _REQUIREMENT_VALUES
    ),
)


def with_gate(command: Callable[..., int]) -> Callable[..., int]:
    """``command`` with the gate's flags, declared once here and given to it as one ``gate``
    (:class:`Gate`) argument; a malformed value is bad input before the command starts."""
    import functools
    import inspect

    own = inspect.signature(command, eval_str=True)
    kept = [p for p in own.parameters.values() if p.name != "gate"]
    flags = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in _GATE_FLAGS
    ]

    @functools.wraps(command)
    def gated(*args: Any, **kwargs: Any) -> int:
        from tf_gpucheck.checks.requirements import Requirements

        given: dict[str, Any] = {n: kwargs.pop(n, default) for n, _, default in _GATE_FLAGS}
        allow_cpu, strict = bool(given.pop("allow_cpu")), bool(given.pop("strict"))
        requirements = Requirements.from_flags(**given)
        return command(*args, gate=Gate(allow_cpu, strict, requirements), **kwargs)

    gated.__signature__ = own.replace(parameters=[*kept, *flags])  # type: ignore[attr-defined]
    return gated

"""`gpucheck detect`: the snapshot for people."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck.factwords import framework_label, nvml_problem, place_words
from tf_gpucheck.render.format import human_bytes, human_seconds, text
from tf_gpucheck.snapshot import (
    FrameworksInfo,
    LibrariesInfo,
    NvmlInfo,
    PackagesInfo,
    PlaceInfo,
    Snapshot,
    SystemInfo,
    TensorflowInfo,
)


def render_snapshot(snapshot: Snapshot) -> RenderableType:
    return Group(
        _heading("System"),
        _system(snapshot.system),
        _heading("Where it runs"),
        _place(snapshot.place),
        _heading("NVIDIA driver and GPUs"),
        _nvml(snapshot.nvml),
        _heading("CUDA libraries"),
        _libraries(snapshot.libraries),
        _heading("Python packages"),
        _packages(snapshot.packages),
        _heading("TensorFlow"),
        _tensorflow(snapshot.tensorflow),
        _heading("Other frameworks"),
        _frameworks(snapshot.frameworks),
    )


def _place(place: PlaceInfo | None) -> RenderableType:
    table = _kv()
    if place is None:
        table.add_row("Place", "not recorded")
        return table
    table.add_row("Place", text(place_words(place) or "not in a container, pod, job or notebook"))
    if place.markers:
        table.add_row("Markers", text(", ".join(place.markers)))
    if place.slurm_job:
        table.add_row("SLURM GPUs", text(place.slurm_gpus or "none allocated"))
    if place.ci:
        table.add_row("CI", text(place.ci))
    runtime = place.nvidia
    if runtime and (place.container or place.kubernetes or runtime.device_nodes):
        table.add_row("GPU devices", text(" ".join(runtime.device_nodes) or "none"))
        table.add_row("Driver libraries", text(" ".join(runtime.driver_libraries) or "none"))
        for name, value in (
            ("NVIDIA_VISIBLE_DEVICES", runtime.visible_devices),
            ("NVIDIA_DRIVER_CAPABILITIES", runtime.driver_capabilities),
            ("NVIDIA_REQUIRE_CUDA", runtime.require_cuda),
        ):
            if value is not None:
                table.add_row(name, text(value))
    return table


def _heading(title: str) -> Text:
    return Text(f"\n{title}", style="heading")


def _kv() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="muted", no_wrap=True)
    table.add_column(overflow="fold")
    return table


def _system(system: SystemInfo) -> RenderableType:
    table = _kv()
    os_text = f"{system.os} {system.os_release}"
    if system.os_pretty_name:
        os_text += f" ({system.os_pretty_name})"
    table.add_row("OS", text(os_text + (", WSL2" if system.is_wsl else "")))
    table.add_row("Architecture", text(system.arch))
    table.add_row("Python", text(f"{system.python_version}  {system.python_executable}"))
    cpu = system.cpu_model or "unknown"
    if system.cpu_count:
        cpu += f", {system.cpu_count} logical cores"
    table.add_row("CPU", text(cpu))
    table.add_row("CPU features", text(" ".join(system.cpu_features) or None))
    set_vars = {k: v for k, v in system.env.items() if v is not None}
    for name, value in set_vars.items():
        table.add_row(name, text(value))
    if not set_vars:
        table.add_row(
            "Environment", Text("none of the CUDA/TensorFlow variables is set", style="muted")
        )
    return table


def _nvml(nvml: NvmlInfo) -> RenderableType:
    if not nvml.available:
        return Text(nvml_problem(nvml), style="warn")
    summary = _kv()
    summary.add_row("Driver", text(nvml.driver_version))
    summary.add_row("CUDA (driver API)", text(nvml.cuda_driver_version))
    if nvml.error:
        summary.add_row("Problem", Text(nvml.error, style="warn"))
    if not nvml.gpus:
        summary.add_row("GPUs", Text("the driver reports no GPU", style="warn"))
        return summary
    gpus = Table(box=None, pad_edge=False, header_style="muted")
    mig = any(gpu.mig_mode is not None for gpu in nvml.gpus)
    columns = ["#", "name", "compute capability", "memory used / total", "processes"]
    columns += ["MIG"] if mig else []
    for column in [*columns, "PCI bus", "UUID"]:
        gpus.add_column(column, overflow="fold")
    for gpu in nvml.gpus:
        memory = f"{human_bytes(gpu.memory_used_bytes)} / {human_bytes(gpu.memory_total_bytes)}"
        cells = [
            str(gpu.index),
            text(gpu.name),
            text(gpu.compute_capability),
            memory if gpu.memory_total_bytes is not None else "—",
            str(len(gpu.processes)),
        ]
        cells += [text(gpu.mig_mode)] if mig else []
        gpus.add_row(*cells, text(gpu.pci_bus_id), text(gpu.uuid))
        for field, error in gpu.errors.items():
            blanks = [""] * len(cells)
            gpus.add_row("", Text(f"{field}: {error}", style="warn"), *blanks)
    return Group(summary, gpus)


def _libraries(info: LibrariesInfo) -> RenderableType:
    if not info.probed:
        return Text(f"not searched: {info.reason}", style="muted")
    table = Table(box=None, pad_edge=False, header_style="muted")
    for column in ("library", "version", "found in", "path", "loads"):
        table.add_column(column, overflow="fold")
    for lib in info.libraries:
        if not lib.locations:
            table.add_row(lib.name, "—", Text("not found", style="muted"), "—", "—")
            continue
        first = lib.locations[0]
        source = first.source + (f" ({first.package})" if first.package else "")
        if len(lib.locations) > 1:
            source += f", +{len(lib.locations) - 1} more"
        if lib.loadable is None:
            loads = Text("not tried", style="muted")
        elif lib.loadable:
            loads = Text("yes", style="ok")
        else:
            loads = Text(f"no: {lib.load_error}", style="fail")
        table.add_row(lib.name, text(lib.version), text(source), text(first.path), loads)
    return table


def _packages(packages: PackagesInfo) -> RenderableType:
    table = _kv()
    if packages.error:
        table.add_row("Problem", Text(packages.error, style="fail"))
    tf = ", ".join(f"{d.name} {d.version}" for d in packages.tensorflow)
    table.add_row("TensorFlow", text(tf or "none installed"))
    table.add_row("keras", text(packages.keras))
    table.add_row("tf-keras", text(packages.tf_keras))
    nvidia = ", ".join(f"{d.name} {d.version}" for d in packages.nvidia)
    table.add_row("nvidia-* wheels", text(nvidia or None))
    if packages.and_cuda_requirements:
        count = len(packages.and_cuda_requirements)
        table.add_row("and-cuda extra", text(f"{count} pinned CUDA packages (listed in --json)"))
    return table


def _tensorflow(tf: TensorflowInfo) -> RenderableType:
    if not tf.probed:
        state = "installed" if tf.installed else "not installed"
        return Text(
            f"not imported (--no-tf); TensorFlow is {state} per package metadata", style="muted"
        )
    table = _kv()
    if tf.installed is False:
        table.add_row("TensorFlow", Text("not installed in this Python", style="fail"))
        return table
    table.add_row("Version", text(tf.version))
    build = tf.build_info or {}
    if build:
        if build.get("is_cuda_build"):
            cudnn = str(build.get("cudnn_version", "?"))
            # build_info.py gives cuDNN's major alone ("9"); say so, as doctor names the release
            # TensorFlow was tested with (9.3) from the tested configurations
            major_only = cudnn.isdigit()
            built = f"CUDA {build.get('cuda_version', '?')}, cuDNN {cudnn}" + (
                " (its major: build_info.py names no more)" if major_only else ""
            )
        elif build.get("is_rocm_build"):
            built = "ROCm"
        else:
            built = "no GPU support (CPU-only build)"
        table.add_row("Built for", text(built))
        capabilities = build.get("cuda_compute_capabilities")
        if capabilities:
            table.add_row("Kernels for", text(" ".join(str(c) for c in capabilities)))
    table.add_row("Import time", human_seconds(tf.import_seconds))
    table.add_row("Physical devices", text(", ".join(d.name for d in tf.physical_devices) or None))
    table.add_row("Logical devices", text(", ".join(d.name for d in tf.logical_devices) or None))
    for detail in tf.device_details:
        described = ", ".join(f"{k}={v}" for k, v in detail.details.items())
        table.add_row(text(detail.device), text(described))
    for op in tf.ops:
        if op.ok:
            outcome = Text(f"ok, {human_seconds(op.seconds)}, checksum {op.checksum:g}", style="ok")
        else:
            outcome = Text(f"failed: {op.error}", style="fail")
        table.add_row(text(f"matmul on {op.device}"), outcome)
    if tf.error:
        table.add_row("Problem", Text(tf.error, style="fail"))
    table.add_row("Start-up log", text(f"{len(tf.log)} lines (gpucheck detect --json shows them)"))
    return table


def _frameworks(info: FrameworksInfo) -> RenderableType:
    if not info.probed:
        return Text(f"not probed: {info.reason or 'no reason recorded'}", style="muted")
    table = _kv()
    for framework in info.frameworks:
        if framework.gpu_usable:
            seen = Text(f"uses the GPU: {', '.join(framework.devices)}", style="ok")
        elif framework.built_with_cuda is False:
            seen = Text("CPU-only build: cannot use a GPU", style="muted")
        elif framework.error:
            seen = Text(f"no GPU: {framework.error}", style="warn")
        else:
            seen = Text("no GPU", style="warn")
        table.add_row(text(framework_label(framework)), seen)
    return table

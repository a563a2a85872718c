"""Compose files and Kubernetes manifests: does a service or container that runs a GPU image ask
for the GPU, in the way its orchestrator documents?

- Docker Compose ("GPU support in Docker Compose", docs.docker.com/compose/how-tos/gpu-support):
  ``deploy.resources.reservations.devices`` with ``capabilities: [gpu]``, or the older
  ``runtime: nvidia``, or ``gpus``.
- Kubernetes ("Schedule GPUs", kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus): a
  ``nvidia.com/gpu`` entry under ``resources.limits`` (extended resources are set as limits; a
  request alone does not give the GPU).

A GPU image is one whose facts say so (``nvidia/cuda``, a TensorFlow GPU image, an NGC image);
an image gpucheck does not know is judged only where the manifest itself asks for NVIDIA
(variables, tolerations, node selectors naming nvidia).
"""

from __future__ import annotations

from typing import Any

import yaml

from tf_gpucheck.checks.findings import Status
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.lint import LintFinding, images

_POD_PATHS = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


def _nodes(text: str, path: str) -> list[yaml.Node]:
    try:
        return [node for node in yaml.compose_all(text, Loader=yaml.SafeLoader) if node is not None]
    except yaml.YAMLError as exc:
        raise GpucheckError(
            f"{path}: not YAML ({str(exc).splitlines()[0]})", reference="lint-unreadable"
        ) from None


def _get(node: yaml.Node | None, *keys: str) -> yaml.Node | None:
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            return None
        node = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
    return node


def _value(node: yaml.Node | None) -> Any:
    return yaml.safe_load(yaml.serialize(node)) if node is not None else None


def _line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def _gpu_image(reference: str | None) -> tuple[bool, bool]:
    """(known, needs a GPU) for an image reference."""
    if not reference:
        return False, False
    facts = images.facts(reference)
    return facts.known, bool(facts.tf_gpu or facts.cuda)


def _mentions_nvidia(value: Any) -> bool:
    return "nvidia" in str(value).lower()


def lint_compose(path: str, text: str) -> list[LintFinding]:
    found: list[LintFinding] = []
    for document in _nodes(text, path):
        services = _get(document, "services")
        if not isinstance(services, yaml.MappingNode):
            continue
        for key, service in services.value:
            name = key.value
            image = _value(_get(service, "image"))
            known, gpu_image = _gpu_image(image)
            environment = _value(_get(service, "environment"))
            wants = (
                gpu_image
                or _mentions_nvidia(environment)
                or _value(_get(service, "runtime")) == "nvidia"
            )
            if not wants:
                if not known:
                    found.append(
                        LintFinding(
                            path,
                            _line(key),
                            Status.INFO,
                            "place",
                            None,
                            f"service {name}: {image or 'a built image'} is not one gpucheck knows; not judged",
                        )
                    )
                continue
            devices = _value(_get(service, "deploy", "resources", "reservations", "devices")) or []
            asks = any(
                "gpu" in (d.get("capabilities") or []) or d.get("driver") == "nvidia"
                for d in devices
                if isinstance(d, dict)
            )
            asks = (
                asks
                or _value(_get(service, "runtime")) == "nvidia"
                or _get(service, "gpus") is not None
            )
            if not asks:
                found.append(
                    LintFinding(
                        path,
                        _line(key),
                        Status.FAIL,
                        "place",
                        "container_no_gpu",
                        f"service {name} runs {image or 'a GPU image'} but asks for no GPU: its containers start without one",
                        "under the service: deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}",
                    )
                )
            else:
                found.append(
                    LintFinding(
                        path,
                        _line(key),
                        Status.OK,
                        "place",
                        None,
                        f"service {name} asks for the GPU",
                    )
                )
            found += _env_findings(
                path, f"service {name}", environment, _line(_get(service, "environment"))
            )
    return found


def _env_findings(path: str, who: str, environment: Any, line: int | None) -> list[LintFinding]:
    if isinstance(environment, list):
        pairs = dict(str(item).partition("=")[::2] for item in environment)
    elif isinstance(environment, dict):
        pairs = {str(k): "" if v is None else str(v) for k, v in environment.items()}
    else:
        return []
    out = []
    if pairs.get("NVIDIA_VISIBLE_DEVICES") in ("void", "none", ""):
        out.append(LintFinding(path, line, Status.FAIL, "place", "container_no_gpu",
                               f"{who}: NVIDIA_VISIBLE_DEVICES={pairs['NVIDIA_VISIBLE_DEVICES']!r} gives it no GPU",
                               "NVIDIA_VISIBLE_DEVICES=all"))  # fmt: skip
    capabilities = pairs.get("NVIDIA_DRIVER_CAPABILITIES")
    if capabilities is not None and not {"compute", "all"} & set(capabilities.split(",")):
        out.append(LintFinding(path, line, Status.FAIL, "place", "container_capabilities_missing",
                               f"{who}: NVIDIA_DRIVER_CAPABILITIES={capabilities} has no compute: no libcuda inside",
                               "NVIDIA_DRIVER_CAPABILITIES=compute,utility"))  # fmt: skip
    if "CUDA_VISIBLE_DEVICES" in pairs:
        out.append(LintFinding(path, line, Status.WARN, "gpu_visibility", "gpu_hidden_by_env",
                               f"{who}: CUDA_VISIBLE_DEVICES={pairs['CUDA_VISIBLE_DEVICES']} is fixed in the manifest",
                               "leave CUDA_VISIBLE_DEVICES to the runtime (the GPUs a container gets are its own)"))  # fmt: skip
    return out


def lint_kubernetes(path: str, text: str) -> list[LintFinding]:
    found: list[LintFinding] = []
    for document in _nodes(text, path):
        kind = _value(_get(document, "kind"))
        if kind not in _POD_PATHS:
            continue
        name = _value(_get(document, "metadata", "name")) or kind
        spec = _get(document, *_POD_PATHS[kind])
        hints = _mentions_nvidia(_value(_get(spec, "tolerations"))) or _mentions_nvidia(
            _value(_get(spec, "nodeSelector"))
        )
        runtime_class = _value(_get(spec, "runtimeClassName"))
        containers = _get(spec, "containers")
        if not isinstance(containers, yaml.SequenceNode):
            continue
        for container in containers.value:
            cname = _value(_get(container, "name")) or "?"
            image = _value(_get(container, "image"))
            known, gpu_image = _gpu_image(image)
            environment = {
                str(e.get("name")): str(e.get("value", ""))
                for e in _value(_get(container, "env")) or []
                if isinstance(e, dict)
            }
            who = f"{kind} {name}, container {cname}"
            found += _env_findings(path, who, environment, _line(_get(container, "env")))
            limits = _value(_get(container, "resources", "limits")) or {}
            requests = _value(_get(container, "resources", "requests")) or {}
            if "nvidia.com/gpu" in limits:
                found.append(LintFinding(path, _line(container), Status.OK, "place", None,
                                         f"{who}: limits nvidia.com/gpu: {limits['nvidia.com/gpu']}"))  # fmt: skip
                continue
            if not (
                gpu_image
                or hints
                or _mentions_nvidia(environment)
                or runtime_class == "nvidia"
                or "nvidia.com/gpu" in requests
            ):
                if not known:
                    found.append(LintFinding(path, _line(container), Status.INFO, "place", None,
                                             f"{who}: {image} is not one gpucheck knows; not judged"))  # fmt: skip
                continue
            why = (
                "requests nvidia.com/gpu without a limit (GPUs are given by limits: Kubernetes refuses a request alone)"
                if "nvidia.com/gpu" in requests
                else "asks for no nvidia.com/gpu"
            )
            found.append(
                LintFinding(
                    path,
                    _line(container),
                    Status.FAIL,
                    "place",
                    "pod_no_gpu",
                    f"{who} runs {image} but {why}: the pod gets no GPU",
                    "resources: {limits: {nvidia.com/gpu: 1}}  # under the container",
                )
            )
    return found

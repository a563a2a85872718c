"""pip found no file at all of a package of TensorFlow's family ("(from versions: none)"):
PyPI's wheels of it (``knowledge/wheels.yaml``, read from PyPI's JSON API by
``scripts/pypi_wheels.py``) say whether the platform or the Python the text states never had one.

pip lists every release that has a file whose tags the interpreter accepts; "none" says no
release ever had one for this interpreter. A package whose wheels never covered the platform
(``tensorflow-text``'s Windows wheels cover Python 3.6-3.10 only; ``tensorflow-metal`` has macOS
wheels alone) or the Python (``tensorflow-addons`` stopped at 3.11) is the cause by PyPI's own
listing; where the wheels cover what the text states, the day the text was written
decides (a Python newer than the releases of that day), which a text does not say: nothing is
judged then. A Python that no platform ever had a wheel for is the Python's doing
(``python_unsupported``); one that other platforms have is the platform's
(``install_resolution_failed``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tf_gpucheck import knowledge
from tf_gpucheck.checks import diagnosis, pipsaid
from tf_gpucheck.checks.findings import Finding, Status
from tf_gpucheck.reading import textfacts

_LABELS = {
    "linux": "Linux x86_64",
    "linux_aarch64": "Linux aarch64",
    "macos": "Intel macOS",
    "macos_arm64": "Apple-silicon macOS",
    "windows": "64-bit Windows",
    "windows_32bit": "32-bit Windows",
}


def _platforms(stated: textfacts.StatedFacts) -> tuple[str, ...]:
    """The wheel platforms the text's machine may be: () where it does not say."""
    if stated.is_wsl or stated.os == "Linux":
        return ("linux_aarch64",) if stated.arch == "aarch64" else ("linux",)
    if stated.os == "Darwin":
        return ("macos_arm64",) if stated.arch == "arm64" else ("macos", "macos_arm64")
    if stated.os == "Windows":
        return ("windows",)
    return ()


def _has(pythons: Sequence[str], python: str) -> bool:
    major = python.split(".", maxsplit=1)[0]
    return python in pythons or major in pythons  # "3": a py3 wheel for one platform


def _series(python: str) -> str:
    return ".".join(python.split(".")[:2])


def _spans(pythons: Sequence[str]) -> str:
    """3.5, 3.6, 3.7, 3.9 -> "3.5-3.7, 3.9"."""
    minors = sorted({p for p in pythons if "." in p}, key=lambda p: tuple(map(int, p.split("."))))
    out: list[list[str]] = []
    for p in minors:
        major, minor = map(int, p.split("."))
        if out and out[-1][-1] == f"{major}.{minor - 1}":
            out[-1].append(p)
        else:
            out.append([p])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in out)


def family_pip_cannot_serve(
    stated: textfacts.StatedFacts, evidence: Sequence[diagnosis.Evidence], index_answered: bool
) -> list[Finding]:
    """The finding for "(from versions: none)" of a package in ``knowledge/wheels.yaml`` whose
    wheels never covered the platform or the Python the text states; none otherwise, and none
    where the text shows pip did not get PyPI's own answer (``index_answered`` False)."""
    said = pipsaid.pip_said([e for e in evidence if e.cause == "install_resolution_failed"])
    if said is None:
        return []
    name, spec, offered = said
    entry = knowledge.read("wheels.yaml")["packages"].get(name.replace("_", "-"))
    if entry is None or offered or (offered is None and spec.strip()):
        return []  # pip saw releases, or a pin without the list of what it saw
    wheels: dict[str, list[str]] = entry["wheels"]
    if "any" in wheels or not index_answered:
        return []  # a pure-Python wheel (Requires-Python decides), or not PyPI's answer
    source = f"(PyPI's files of every {name} release: {entry['source']})"
    places = _platforms(stated)
    if places and not any(p in wheels for p in places):
        where = " or ".join(_LABELS[p] for p in places)
        has = ", ".join(_LABELS.get(p, p) for p in wheels)
        return [
            Finding(
                "python",
                Status.FAIL,
                f"pip found no {name} at all (from versions: none): no release of it has a wheel "
                f"for {where}, only for {has}",
                f"pip lists every release with a wheel whose tags the interpreter accepts\n{source}",
                f"install {name} where it has wheels ({has}; on Windows: WSL2), or do without it",
                "install_resolution_failed",
            )
        ]
    python = stated.python_version
    if not python:
        return []
    series = _series(python)
    everywhere = sorted({p for pythons in wheels.values() for p in pythons})
    here = sorted({p for place in places for p in wheels.get(place, [])}) or everywhere
    if _has(here, series):
        return []
    words = stated.span_of("python_version") or f"Python {python}"
    if _has(everywhere, series):
        # other platforms have it for this Python: the platform's own wheels are what is missing
        where = " or ".join(_LABELS[p] for p in places)
        return [
            Finding(
                "python",
                Status.FAIL,
                f"the text says {words!r}: {name} has wheels for Python {series} on other "
                f"platforms, but on {where} no release has one for it (only for Python "
                f"{_spans(here)}), so pip has none to install",
                f"pip skips every file whose tags the interpreter does not accept\n{source}",
                f"on {where} use a Python in {_spans(here)} for {name}, or Linux (WSL2 on "
                "Windows), where its wheels cover more",
                "install_resolution_failed",
                stated=(words,),
            )
        ]
    newest = entry["newest_wheels"]
    use = _spans(sorted({p for place in (places or tuple(newest)) for p in newest.get(place, [])}))
    return [
        Finding(
            "python",
            Status.FAIL,
            f"the text says {words!r}: no release of {name} has a wheel for Python {series} on "
            f"any platform, only for Python {_spans(everywhere)}, so pip has none to install",
            f"pip skips every file whose tags the interpreter does not accept\n{source}",
            f"use a Python in {use or _spans(here)} for {name} {entry['newest'] or ''}".rstrip()
            + ", or do without the package",
            "python_unsupported",
            stated=(words,),
        )
    ]


def tensorflow_had_wheels_for(stated: textfacts.StatedFacts, python: str) -> tuple[str, str] | None:
    """Where the Python the text states came out after PyPI had a final tensorflow wheel for its
    minor on the text's platform (on Linux x86_64, macOS and Windows alike where it does not
    say): (that Python's day, the release and day of the first such wheel), from
    ``knowledge/pythons.yaml`` (the release-schedule PEPs, PyPI's upload times). A text is
    written after the Python it states came out, so pip then had TensorFlow for that Python,
    and "(from versions: none)" is not the Python's doing. ``None`` where it came out first
    (the text may be from before TensorFlow supported it), or for an aarch64 machine, whose
    wheels came later."""
    if stated.arch in ("aarch64", "arm64"):
        return None
    dates = knowledge.read("pythons.yaml")
    day = dates["released"].get(python if python.count(".") == 2 else f"{python}.0")
    firsts = dates["tensorflow_first_wheel"].get(_series(python), {})
    if stated.is_wsl or stated.os == "Linux":
        places: tuple[str, ...] = ("linux",)
    elif stated.os == "Darwin":
        places = ("macos",)
    elif stated.os == "Windows":
        places = ("windows",)
    else:
        places = ("linux", "macos", "windows")
    if day is None or any(p not in firsts for p in places):
        return None
    first_day, release = max(firsts[p] for p in places)
    if day <= first_day:
        return None
    return str(day), f"tensorflow {release}, {first_day}"


_CPYTHON_TAG = re.compile(r"^cp(?P<major>\d)(?P<minor>\d{1,2})$")


def wheel_for_another_python(
    stated: textfacts.StatedFacts, evidence: Sequence[diagnosis.Evidence]
) -> list[Finding]:
    """pip's "FILE.whl is not a supported wheel on this platform" where the Python tag in the
    file's name (PEP 425: ``cp35`` is CPython 3.5) is not the Python the text states: the file
    was built for another interpreter, and pip installs a wheel only into a Python its tags
    name. A pure-Python tag (``py3``) or a wheel for the stated Python says nothing of it (its
    ABI or platform tag is then what does not fit); nor does a text that states no Python (an
    aarch64 wheel on a Jetson of the right Python is refused for its platform tag)."""
    python = stated.python_version
    if python is None:
        return []
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    series = _series(python)
    for item in evidence:
        rule, file = item.line.rule, item.line.library
        if rule is None or rule.id != "pip_unsupported_wheel" or not file:
            continue
        try:  # PEP 427's file name: name, version, build tag, then its PEP 425 tags
            name, version, _build, tags = parse_wheel_filename(file)
        except InvalidWheelFilename:
            continue
        interpreters = sorted({tag.interpreter for tag in tags})
        pythons = [m for m in map(_CPYTHON_TAG.match, interpreters) if m]
        if not pythons or len(pythons) != len(interpreters):
            continue
        built = [f"{m['major']}.{m['minor']}" for m in pythons]
        if series in built:
            continue
        which = " or ".join(built)
        words = stated.span_of("python_version") or f"Python {python}"
        return [
            Finding(
                "python",
                Status.FAIL,
                f"{file} was built for CPython {which} (its {'.'.join(interpreters)} tag) and "
                f"the text says {words!r}: pip installs a wheel only into a Python its tags name",
                "a wheel's file name carries its tags (PEP 425: Python, ABI, platform); python "
                "-m pip debug --verbose lists the tags an interpreter accepts\n(judged on what "
                "the text states)",
                f"use Python {which} for this file, or the {name} {version} wheel built for "
                f"Python {series} where that release has one (gpucheck matrix lists the Pythons "
                "of each TensorFlow release)",
                "python_unsupported",
                stated=(words,),
            )
        ]
    return []

"""What the writer of a text says about the GPU: that one was wanted and not had, that there is
none there, that the machine was set up for one; read in the writer's own words (the prose, and
sentences that quote a message), never in a printed message's."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tf_gpucheck.reading import logscan, textfacts
from tf_gpucheck.reading.logrules import Rule

GPU_BUILDS = frozenset({"tensorflow-gpu", "tf-nightly-gpu"})
"""The distributions that are a GPU build by name."""

GPU_MISSED = re.compile(
    r"(?i)\b(?:not|never|isn't|doesn't|does not|don't|do not|can't|cannot|can not|couldn't|"
    r"could not|won't|unable to|(?:is |am |are |was )?not able to|fails? to|failed to)\s+"
    r"(?:be\s+)?(?:use[sd]?|using|see[sn]?|seeing|find|found|detect(?:ed|s)?|recogni[sz]e[sd]?|"
    r"utili[sz]e[sd]?|run(?:ning)? on|access|start)\s+"
    r"(?:the |my |any |a |an )?(?:nvidia |tensorflow[- ])?(?:gpus?|cuda|cudnn)\b"
    r"|\bdisabl(?:e|es|ed|ing)\s+(?:the |my )?(?:gpu|tensorflow-gpu)\b"
    r"|\bgpus?\s+(?:is |was |are |were )?(?:still )?(?:not|never)\s+(?:being\s+)?(?:used|"
    r"detected|found|recogni[sz]ed|available|utili[sz]ed|working|in use|visible|seen)\b"
    r"|\b(?:runs?|running|trains?|training|uses?|using)\s+only\s+(?:on\s+)?(?:the\s+)?cpu\b"
    r"|\bonly\s+(?:runs?\s+on|uses?)\s+(?:the\s+)?cpu\b|\bonly\s+(?:the\s+)?cpu\s+(?:works|is used)\b"
    r"|\b(?:problems?|trouble|issues?)\s+(?:running|using|training)\b[^.\n]{0,30}?\bon\s+(?:the |my )?gpu\b"
    r"|\bgpu\s*(?:不能|无法|沒有被?|没有被?|未被?|認識されな|使えな|인식(?:이)? ?안|안 ?(?:돼|됨|보))"
    # TensorFlow's own listing of GPUs, told as coming back empty ("list_physical_devices('GPU')
    # returns an empty list", "gpu_device_name() ... return is empty")
    r"|\b(?:list_physical_devices|list_local_devices|gpu_device_name|is_gpu_available)\b[^\n]{0,60}?"
    r"\b(?:returns?|returned|returning|gives?|gave|prints?|printed|shows?|showed|outputs?|is|gets?|got)"
    r"\s*(?:an?\s+|me\s+|just\s+|only\s+)?(?:empty|\[\s*\]|false\b|''|\"\")|\breturn(?:s|ed)? is empty"
)
"""Prose that says the GPU was wanted and not had ("TensorFlow does not use my GPU", "GPU not
detected", "training runs only on the CPU", "GPU无法使用"): lines normal on a machine without a
GPU are then evidence, as where the text names a GPU."""

NO_GPU_HERE = re.compile(
    r"(?i)\b(?:don't|do not|doesn't|does not|didn't|did not)\s+have\s+(?:a |an |any )?"
    r"(?:nvidia |dedicated )?(?:gpu|graphics card|nvidia card)"
    r"|\b(?:has|have|with) no (?:nvidia |dedicated |cuda )?(?:gpu|graphics card|video card|card)\b"
    r"|\bno nvidia (?:gpu|card|graphics)|\bwithout (?:a |any )?(?:nvidia )?gpu\b"
    r"|\bcpu[- ]only\b|\bcpu (?:laptop|machine|server|box)\b|\bintegrated graphics\b"
    r"|\bintel (?:hd|uhd|iris)\b|\bon purpose\b|\bas (?:i|we) want"
    r"|\b(?:i|we) (?:run|train|use) (?:it |this |tensorflow |tf )?on (?:the |my |a )?cpu\b"
)
"""Prose that says there is no GPU there, or that the CPU is wanted ("I run it on the CPU"; not
"it runs only on the CPU", a complaint): no GPU was missed."""

_GPU_NAMED = re.compile(
    r"(?<![a-z])gpus?(?![a-z])|cud(?:a|nn|art)|cublas|nvidia|显卡|显存|グラフィック|그래픽|видеокарт",
    re.IGNORECASE,
)


def names_a_gpu(stated: textfacts.StatedFacts, lines: Sequence[str]) -> bool:
    """Whether the text speaks of a GPU at all: a GPU, driver, CUDA or cuDNN it states, or any
    word of one (GPU, CUDA, cuDNN, a CUDA library's name, NVIDIA, a GPU build, "显卡"). A text
    with none is about something else, and a build or platform that cannot use a GPU is no
    fault of it."""
    if stated.gpus or stated.driver_version or stated.gpu_requested:
        return True
    if stated.cuda_version or stated.cudnn_version:
        return True
    return any(_GPU_NAMED.search(line) for line in lines)


PROSE_LINES = 5000
PROSE_CHARS = 1000
"""How much of a text its prose is read in, for these words: the lines people write come first,
and a line past a thousand characters is a log dumped on one line."""


def prose(classified: Sequence[logscan.LogLine]) -> list[str]:
    """The unrecognised lines of a text, lower-cased, each cut at :data:`PROSE_CHARS`, without
    Markdown's emphasis (``*without* a GPU``)."""
    return [
        line.text[:PROSE_CHARS].lower().replace("*", "")
        for line in classified[:PROSE_LINES]
        if line.rule is None
    ]


def says_gpu_missed(
    stated: textfacts.StatedFacts, classified: Sequence[logscan.LogLine], said_no_gpu: bool
) -> bool:
    if stated.cuda_visible_devices is not None and stated.cuda_visible_devices.strip() in (
        "",
        "-1",
    ):
        return False  # the GPU hidden on purpose
    lines = [t for t in prose(classified) if "gpu" in t or "cpu" in t or "cud" in t]
    if not lines or said_no_gpu:
        return False
    return any(GPU_MISSED.search(t) for t in lines)


_QUOTED = re.compile(r'(?<![\d\w])"[^"\n]*"|`[^`\n]*`|\u201c[^\u201d]*\u201d')
"""Words quoted in a sentence: someone else's (a message's), not the writer's. A ``"`` after a
digit or letter is an inch mark or part of a word, not a quote."""


def said(classified: Sequence[logscan.LogLine]) -> list[str]:
    """What the writer says, lower-cased: the prose, and the sentences that quote a message (a
    line without a log prefix: "on a machine *without* a GPU, this emits 'failed call to
    cuInit'"), without Markdown's emphasis and without the quoted words; not a printed message,
    nor one pasted without its prefix (TensorFlow's own "if you do not have a GPU set up"), nor
    a line with a program's log prefix that no rule knows (cuda_diagnostics.cc's "no NVIDIA GPU
    device is present: /dev/nvidia0 does not exist" is TensorFlow's, not the writer's)."""
    out = []
    for line in classified[:PROSE_LINES]:
        if line.severity is not None:
            continue  # a printed message, known or not
        text = _QUOTED.sub(" ", line.text[:PROSE_CHARS].replace("*", ""))
        if line.rule is not None:
            text = _around_message(line.rule, text)
            if not text:
                continue  # the message itself, pasted without its prefix
        out.append(text.lower())
    return out


def _around_message(rule: Rule, text: str) -> str:
    """The writer's words around a message quoted without its prefix ("Could not load dynamic
    library 'cudart64_101.dll' on tensorflow CPU-only installation"): the line without the
    message, where what is left is not the rest of the message as it is printed (TensorFlow's
    "Ignore above cudart dlerror if you do not have a GPU set up on your machine." is all
    TensorFlow's, as the rule's real examples show)."""
    match = rule.pattern.search(text)
    if match is None:
        return text
    rest = (text[: match.start()] + " " + text[match.end() :]).strip(" .,;:'\"-")
    if len(rest) < 8 or any(rest.lower() in e.line.lower() for e in rule.examples):
        return ""
    return rest


def says_no_gpu_here(said: Sequence[str]) -> bool:
    """The words say there is no GPU there or the CPU is wanted."""
    return any(NO_GPU_HERE.search(t) for t in said if any(k in t for k in _NO_GPU_KEYS))


_NO_GPU_KEYS = ("gpu", "cpu", "graphics", "card", "intel", "purpose", "want")
"""A word of each of :data:`NO_GPU_HERE`'s forms: a line with none of them is not searched."""


_GPU_BUILD_NAMED = re.compile(
    r"(?<![\w-])(?:tensorflow|tf-nightly|tensorflow-nightly|tf|tfjs-node)-gpu\b"
    r"(?!\s+is deprecated)"
)
"""A GPU build by name, also as people write it: "tensorflow-nightly-gpu" (tf-nightly-gpu),
"tf-gpu 1.14", the GPU build of TensorFlow.js for Node (tfjs-node-gpu)."""
_NEGATED = re.compile(
    r"(?:\bnot|n't|\bno|\bwithout|\bneed to|\bneeds to|\bbefore|\buninstall(?:ed|ing)?|"
    r"\binstead of|\bremoved?)\s+(?:\S+\s+){0,2}$"
)
"""Words right before a name that say it is not what is there ("not tensorflow-gpu", "without
installing CUDA", "I uninstalled tensorflow-gpu", "do I need to install CUDA")."""


def _named(pattern: re.Pattern[str], lines: Sequence[str]) -> bool:
    """``pattern`` occurs in a line, not right after words that negate it."""
    for text in lines:
        for match in pattern.finditer(text):
            if not _NEGATED.search(text[max(0, match.start() - 40) : match.start()]):
                return True
    return False


def gpu_build_named(stated: textfacts.StatedFacts, words: Sequence[str]) -> bool:
    """A GPU build of TensorFlow by its own name is installed or used, as the text states it."""
    return any(stated.package(name) for name in GPU_BUILDS) or _named(
        _GPU_BUILD_NAMED, [t for t in words if "-gpu" in t]
    )


_GPU_SETUP = re.compile(
    r"\b(?:pip3?|conda|mamba)\s+install\s+(?:-\S+\s+)*(?:tensorflow-gpu|tf-nightly-gpu|"
    r"tfjs-node-gpu|\S*tensorflow\[and-cuda\])"
    r"|\b(?:tensorflow|tf-nightly|tensorflow-nightly|tf)-gpu\s*(?:==|v)?\s*\d+\.\d+"
    r"|\binstalled\s+(?:the\s+)?(?:nvidia\s+)?cuda\b"
    r"|\bcuda\s*(?:toolkit\s*)?\d+(?:\.\d+)*\s+(?:is\s+)?installed\b"
)
"""Words that say the machine was set up for an NVIDIA GPU: a GPU build installed, CUDA
installed ("pip install tensorflow-gpu==2.2.0", "with cuda 11 installed", "I installed the CUDA
9.0")."""


def set_up_for_a_gpu(stated: textfacts.StatedFacts, said: Sequence[str]) -> bool:
    """The text shows the machine set up for an NVIDIA GPU (a CUDA toolkit or cuDNN it states
    installed, :data:`_GPU_SETUP`'s words), and does not say there is no GPU: whoever set it up
    wanted the GPU. (A CUDA a release needs or was built against is not one installed:
    ``StatedFacts.needed``.)"""
    if says_no_gpu_here(said):
        return False
    return bool(stated.cuda_version or stated.cudnn_version) or _named(
        _GPU_SETUP, [t for t in said if "gpu" in t or "cuda" in t]
    )

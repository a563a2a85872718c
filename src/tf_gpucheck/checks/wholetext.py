"""What a text says as a whole, where no recognised message and no stated fact names a cause:
the reader's model (:mod:`tf_gpucheck.reading.textmodel`), said as such, or "cannot tell for
sure" with the two likeliest causes and what would decide between them."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from tf_gpucheck.checks import diagnosis, remedies, textual
from tf_gpucheck.checks.findings import Finding, Status
from tf_gpucheck.installer import commands
from tf_gpucheck.matrix import Matrix, fit
from tf_gpucheck.reading import logscan, textfacts, wanted

_SYMPTOM_WORDS = (
    r"(?<![a-z])oom(?:killed)?(?![a-z])|\bout of memory\b|\bstuck\b|\bfreez(?:e|es|ing)\b|\bhangs?\b"
    r"|\bresource ?exhausted\b"
    r"|\bslow(?:er|ly|s|ness|down)?\b|\bbottlenecks?\b|\butili[sz]ation\b|\bgpu[- ]?util|\bidle\b"
    r"|\bnot (?:in use|using (?:the )?gpu)\b|\bno gpu\b"
    r"|\b(?:only|instead) (?:on |uses? |using |runs? on )?(?:the )?cpu\b|\binstead of (?:the )?gpu\b"
    r"|\b(?:uses?|using|runs?|running|trains?|training|install(?:s|ed)?)(?: only| still)? (?:on )?(?:the |my )?cpu\b"
    r"|\bcpu version\b"
    # it stopped or computed wrong: a crash, TensorFlow's failed CHECK quoted in a sentence,
    # results or a loss that are wrong (no harmless message comes with any of them)
    r"|\bcrash(?:es|ed|ing)?\b|\bcheck failed:|\bnan\b"
    r"|\b(?:wrong|arbitrary|incorrect|garbage|inconsistent)\s+(?:results?|outputs?|values?|predictions?)\b"
    r"|只能(?:用|使用|在)?\s*cpu|卡住|内存不足|显存不足|使用cpu|用cpu|認識(?:されない|しない)"
    r"|很慢|非常慢|太慢|变慢|慢了|利用率|遅い|느려|느리|медленн"
    r"|인식(?:이)? ?안|не видит"
)
_SYMPTOM_KEYS = (
    "oom", "out of memory", "resource", "stuck", "freez", "hang", "slow", "bottleneck", "util", "idle",
    "not", "no gpu",
    "cpu", "instead", "crash", "check failed", "nan", "result", "output", "value", "prediction", "卡住", "内存不足", "显存不足", "慢", "利用率", "遅い", "느", "медленн", "認識",
    "인식", "не ",
)  # fmt: skip
_SYMPTOM = re.compile(_SYMPTOM_WORDS, re.IGNORECASE)
"""The words that tell a symptom no harmless message explains (memory ran out, it stopped, it
ran on the CPU): they count even where every recognised line is harmless."""

_FAILED = re.compile(
    r"Traceback \(most recent call last\)|\b\w*(?:Errors?|Exceptions?)\b|\bfail(?:s|ed|ing|ure)?\b"
    r"|\bcannot\b|\bcan't\b|\bcan not\b|\bunable\b|\bnot (?:found|working|detected|recogni[sz]ed|using|used)\b"
    r"|\bcrash|\bdoesn't\b|\bdoes not\b|\bwon't\b|\bkilled\b"
    r"|\bsegmentation fault\b|\bcore dumped\b|\bnot (?:able|available)\b|\bunavailable\b"
    r"|\bbreaks?\b|\bdisables? (?:the )?(?:gpu|tensorflow)"
    r"|报错|错误|失败|无法|不能|只能|溢出|找不到"
    r"|エラー|失敗|できない|使えない|動かない"
    r"|오류|에러|안 ?됨|실패|안 ?돼"
    r"|не работает|ошибк|" + _SYMPTOM_WORDS,
    re.IGNORECASE,
)
"""Words of a report that something went wrong (in the languages of the corpus), the symptoms
among them: such a text is never answered "nothing to fix" for want of a recognised message."""
_FAILED_KEYS = (
    "traceback", "error", "exception", "fail", "cannot", "n't", "unable", "crash", "killed",
    "segmentation", "core dumped", "unavailable", "break", "disable",
    "报错", "错误", "失败", "无法", "不能", "只能", "溢出", "找不到", "エラー", "失敗", "できない",
    "使えない", "動かない", "오류", "에러", "안", "실패", *_SYMPTOM_KEYS,
)  # fmt: skip
"""A word of each of those forms: a line with none of them is not searched (the search tries
every form at every character; a long log line makes that slow)."""


_START = (
    r"(?:start[- ]?up|start(?:ing)? up|first (?:run|time|call|inference|epoch|iteration|batch"
    r"|step|prediction|session|image|frame|tensor|start)|initiali[sz]\w*|warm[- ]?up"
    r"|before (?:it )?(?:start|begin)\w*|to start (?:the )?(?:training|running|session)"
    r"|creat\w* (?:the )?(?:gpu|tensorflow) device)"
)
_SLOW = (
    r"(?:slow|long|minutes|forever|eternity|freez\w*|delay\w*|hang\w*|stuck|wait\w*"
    r"|(?:more|much|a lot of) time)"
)
_NAMED_SYMPTOMS = (
    (
        "gpu_out_of_memory",
        re.compile(
            r"(?<![a-z])oom(?![a-z])|\bout of (?:gpu |gpu's |device )?memory\b"
            r"|resource ?exhausted|显存不足|显存溢出|内存不足|メモリ不足|메모리 부족"
        ),
        ("oom", "out of", "resource", "不足", "溢出", "부족"),
    ),
    (
        "ptx_jit_required",
        re.compile(rf"{_START}[^.?!\n]{{0,60}}\b{_SLOW}|\b{_SLOW}[^.?!\n]{{0,60}}{_START}"),
        ("start", "first", "initiali", "warm", "before", "creat"),
    ),
    (
        "gpu_underused",
        re.compile(
            r"\bgpu\b[^.?!\n]{0,40}\bslower than\b[^.?!\n]{0,30}\bcpu\b"
            r"|\bslower (?:on|with|using) (?:the |my |a )?gpu\b[^.?!\n]{0,30}\b(?:than|vs\.?)\b"
            r"[^.?!\n]{0,20}\bcpu\b"
            r"|\bcpu\b[^.?!\n]{0,40}\bfaster than\b[^.?!\n]{0,30}\bgpu\b"
            r"|\bfaster (?:on|with|using) (?:the |my |a )?cpu\b[^.?!\n]{0,30}\bthan\b[^.?!\n]{0,20}\bgpu\b"
            r"|gpu[^。？！\n]{0,20}比[^。？！\n]{0,10}cpu[^。？！\n]{0,10}慢"
            r"|cpu[^。？！\n]{0,20}比[^。？！\n]{0,10}gpu[^。？！\n]{0,10}快"
            r"|cpu[^。？！\n]{0,6}(?:より|보다)[^。？！\n]{0,10}(?:遅|느)"
            r"|gpu[^。？！\n]{0,6}(?:より|보다)[^。？！\n]{0,10}(?:速|빠)"
        ),
        ("slower", "faster", "比", "より", "보다"),
    ),
)
"""A failure the writer names in words whose cause is that failure: "it raised OOM error",
"OOM after print". The model may rank a neighbour first where no log line is pasted (a slow or
idle GPU is told with the same words of batches and memory); the named failure goes first.
A slow start ("startup time very slow on Tesla V100", "the first inference takes almost 14
minutes", "a long time before beginning to compute", "creating GPU device take about 5
Minutes") is the driver JIT-compiling PTX for a GPU
the build has no binary kernels for: TensorFlow's own warning says "CUDA kernels will be
jit-compiled from PTX, which could take 30 minutes or longer" (gpu_device.cc); it is ruled out
where the stated release has binary kernels for every GPU the text names. A GPU the writer
finds slower than the CPU ("GPU is slower than CPU", "比跑在CPU上还要慢", "cpu下...比GPU下快") is a
GPU left waiting for work: a model or batch too small for its launch and copy overhead, or an
input pipeline that cannot feed it (causes.yaml, gpu_underused); the faults that slow a GPU
down say so in their own lines. Each, named by the writer, is a failure even where every line
the rules know is harmless or good."""


_LOGGED = re.compile(
    r"^\W*(?:\d{4}-\d\d-\d\d[ t]\d\d:\d\d|[iwef]\d{4} \d\d:\d\d)|\b(?:info|debug|warn(?:ing)?)\b ?[-:\]|]"
)
"""A line a program logged (a date and time or glog's prefix at its start, a level between
separators: "2023-10-19 17:12:05,764 - modelscope - INFO - ..."), read in lower case."""


def _named_first(
    causes: Sequence[tuple[str, float]], words: Sequence[str]
) -> list[tuple[str, float]]:
    """The model's causes with the cause of a failure the prose names first, at its own
    probability (the rest in the model's order)."""
    for code, pattern, keys in _NAMED_SYMPTOMS:
        if _says(pattern, keys, words):
            named = [(c, q) for c, q in causes if c == code]
            return named + [(c, q) for c, q in causes if c != code]
    return list(causes)


_MEMORY = r"(?:(?:gpu|gpu's|video|device|graphics|cuda)\s+)?(?:memory|vram)"
_RESERVED = re.compile(
    r"\b(?:allocat\w*|occup\w*|tak(?:e|es|ing)|took|grab\w*|reserv\w*|consum\w*|hog\w*|us(?:e|es|ing)"
    r"|fill\w*|eat\w*|hold\w*|map\w*)\s+(?:up\s+)?(?:almost\s+|nearly\s+|basically\s+)?"
    r"(?:all|the\s+(?:whole|entire|full)|entire|full|most|(?:9\d|100)\s*%)\s+(?:of\s+)?(?:the\s+|my\s+)?"
    r"(?:available\s+|free\s+)?"
    + _MEMORY
    + r"|\b(?:memory|vram)\b[^.?!\n]{0,40}\b(?:(?:is|are|was)\s+)?(?:not\s+(?:be(?:ing)?\s+)?"
    r"(?:released|freed|deallocated|cleared)|never\s+(?:released|freed)"
    r"|remains?\s+(?:high|occupied|allocated|full)|still\s+(?:occupied|allocated|full|in\s+use|reserved))"
    r"|\b(?:release|free|clear|deallocate)\w*\s+(?:the\s+)?(?:gpu\s+)?memory\s+after\b"
    r"|\b(?:large|high|huge|big)\s+(?:percentage|amount|portion|part|share)\s+of\s+(?:the\s+)?"
    + _MEMORY
    + r"\s+(?:is\s+|are\s+)?(?:occupied|used|allocated|taken|reserved)"
    r"|\breserv\w*\s+(?:a\s+)?(?:very\s+)?(?:large|huge|lot\s+of|big)\s+(?:amount\s+of\s+)?"
    r"(?:gpu\s+)?(?:memory|vram)"
    r"|显存[^。，,\n]{0,10}(?:占满|全部|被占用)|(?:占满|占用了?全部|吃满)[^。，,\n]{0,6}显存"
)
_RESERVED_KEYS = ("memory", "vram", "显存")
"""How a writer tells that TensorFlow holds (nearly) all of the GPU's memory, or keeps it after
a model is done: "it pre-allocates the entire GPU memory", "using all gpu's memory", "the
memory is still occupied after find()", "clearing GPU memory after model execution". TensorFlow
does that by design: "By default, TensorFlow maps nearly all of the GPU memory of all GPUs
(subject to CUDA_VISIBLE_DEVICES) visible to the process. This is done to more efficiently use
the relatively precious GPU memory resources on the devices by reducing memory fragmentation"
(https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth)."""


def _reads_as_reservation(classified: Sequence[logscan.LogLine], words: Sequence[str]) -> bool:
    """Whether the text tells only of TensorFlow holding the GPU's memory, as it does by design:
    it says so (:data:`_RESERVED`), names no failure of memory (out of memory, OOM), and shows
    nothing that stopped the program (a traceback, an exception, TensorFlow's error lines)."""
    if not _says(_RESERVED, _RESERVED_KEYS, words):
        return False
    _code, oom, oom_keys = _NAMED_SYMPTOMS[0]
    return not _says(oom, oom_keys, words) and not _broke(classified)


_BROKE = re.compile(
    r"(?:Killed|Aborted|Segmentation fault)\b|.*\bcore dumped\b|Traceback \(most recent call last\)"
    r"|(?:[\w.]+\.)?\w+(?:Error|Exception)\b:?"
)
"""How a line that stopped the program starts: the shell's word for a killed or crashed process,
Python's traceback or exception."""


def _broke(classified: Sequence[logscan.LogLine]) -> bool:
    """Whether a line no rule knows says the program failed: TensorFlow's own error or fatal
    line (``E``, ``F``), a crash, a traceback or an exception. Such a line outweighs harmless
    messages around it ("Allocation of ... exceeds 10% of free system memory", then "Killed")."""
    return any(
        line.rule is None
        and (line.severity in ("E", "F") or bool(_BROKE.match(line.message.strip())))
        for line in classified
    )


def _says(pattern: re.Pattern[str], keys: Sequence[str], lines: Sequence[str]) -> bool:
    """Whether a line (lower-cased) says it: searched only where one of its ``keys`` is."""
    return any(pattern.search(t) for t in lines if any(k in t for k in keys))


_ASKS = re.compile(r"[?？](?:\s|$)")
"""A question mark that ends a sentence (not one inside a link's query string)."""


def _looks_fine(stated: textfacts.StatedFacts, classified: Sequence[logscan.LogLine]) -> bool:
    """A short text of versions and no message at all, that asks nothing: what it states was
    judged (and fits), and nothing in it to read a failure from. A short text that states
    nothing, or asks about what it states ("Will it even run with CUDA 10.1?", "any way to fix
    this?"), is the model's to read: whoever asks does not know that it works."""
    short = not any(line.rule is not None for line in classified) and len(classified) <= 2
    asks = any(_ASKS.search(line.text) for line in classified)
    return short and not asks and bool(stated.evidence)


_DECIDER_OF = {
    "no_nvidia_driver": "driver",
    "driver_too_old": "driver",
    "nvml_driver_mismatch": "driver",
    "cuda_init_failed": "driver",
    "no_nvidia_gpu": "driver",
    "cuda_libs_missing": "library",
    "cudnn_missing": "library",
    "cudnn_version_mismatch": "library",
    "tf_cpu_only_build": "library",
    "python_unsupported": "install",
    "install_resolution_failed": "install",
    "tf_requirement_unmet": "install",
    "keras_mismatch": "install",
    "numpy_incompatible": "install",
    "protobuf_incompatible": "install",
    "multiple_tf_distributions": "install",
    "gpu_underused": "speed",
}


_PLACE_FAMILY = frozenset(diagnosis.PLACE_CAUSES.values())
"""The causes that say the place it runs in was started without a GPU."""


def _at_the_place(
    causes: Sequence[tuple[str, float]], stated: textfacts.StatedFacts
) -> list[tuple[str, float]]:
    """The model's causes, where one says a place was started without a GPU, as the place the
    text shows says it (a container started without a GPU in a Kubernetes pod is the pod's
    missing ``nvidia.com/gpu`` limit), in the model's order."""
    here = diagnosis.PLACE_CAUSES.get(stated.place or "")
    if here is None:
        return list(causes)
    out: list[tuple[str, float]] = []
    for c, q in causes:
        named = here if c in _PLACE_FAMILY else c
        if not any(o == named for o, _ in out):
            out.append((named, q))
    return out


_RULED_OUT_BY_LINES: dict[str, frozenset[str]] = {
    "cuda_build": frozenset({"tf_cpu_only_build", "macos_no_cuda"}),
    "gpu_found": frozenset(
        {"no_nvidia_driver", "no_nvidia_gpu", "gpu_hidden_by_env", "cuda_stub_libcuda",
         "container_no_gpu", "pod_no_gpu", "slurm_no_gpu", "notebook_no_accelerator",
         "nvml_driver_mismatch"}
    ),
    "gpu_device": frozenset({"cuda_libs_missing", "cudnn_missing"}),
}  # fmt: skip
"""What TensorFlow's own lines in the text prove (the rules' ``shows``) rules out: its CUDA build
printed them, so it is no CPU-only build; it found a GPU through the driver, so a driver and a
visible GPU are there; it made a GPU device (or loaded cuDNN), so its CUDA libraries loaded."""


def _ruled_out(
    code: str,
    stated: textfacts.StatedFacts,
    matrix: Matrix,
    shown: frozenset[str] = frozenset(),
) -> bool:
    """Whether what the text states rules the model's cause out, judged by the stated facts, the
    matrix and what TensorFlow's own lines in it show (``shown``), not by words: two
    TensorFlow distributions where a tool printed one; a CPU-only build where it names only a
    GPU build or the CUDA build's lines are there; native Windows where it names another
    system or a release that had native-Windows GPU builds; macOS where it names another
    system; a Python TensorFlow has no wheels for where the stated release has them; no driver,
    GPU or CUDA libraries where TensorFlow's lines show it found the GPU or made its device."""
    from tf_gpucheck.probes.packages import TENSORFLOW_DISTRIBUTIONS

    if any(code in _RULED_OUT_BY_LINES[s] for s in shown):
        return True

    named = {name for name, _ in stated.packages if name in TENSORFLOW_DISTRIBUTIONS}
    row = matrix.release(stated.tf_version) if stated.tf_version else None
    if code == "multiple_tf_distributions":  # a tool's listing that shows one
        return len(named) == 1 and all(stated.printed(f"package:{n}") for n in named)
    if code == "tf_cpu_only_build":
        return bool(named) and named <= wanted.GPU_BUILDS
    if code == "windows_native_unsupported":
        other_system = stated.is_wsl or stated.os in ("Linux", "Darwin")
        return bool(other_system or (row is not None and row.windows_native_cuda))
    if code == "macos_no_cuda":
        return stated.os in ("Linux", "Windows")
    if code == "python_unsupported":
        python = stated.python_version
        return row is not None and python is not None and row.supports_python(python)
    if code == "ptx_jit_required":  # the release has binary kernels for every GPU it names
        # (PyPI's wheel: a build from source or NVIDIA's has kernels of its own)
        caps = row.compute_capabilities if row is not None and not stated.tf_build else None
        ccs = [cc for _name, cc in stated.gpus if cc]
        kernels = [*caps.sass, *caps.ptx] if caps is not None else []
        return bool(kernels and ccs) and all(fit(cc, kernels).kind == "native" for cc in ccs)
    return False


def whole_reading_findings(
    lines: Sequence[str],
    findings: Sequence[Finding],
    classified: Sequence[logscan.LogLine],
    stated: textfacts.StatedFacts,
    known: diagnosis.Known,
    matrix: Matrix,
    model: object | None = None,
    *,
    gpu_named: bool = True,
) -> list[Finding]:
    """The cause the text says as a whole (:mod:`tf_gpucheck.reading.textmodel`), where no
    recognised message and no stated fact names one: the model's most likely cause, said as
    such; below its calibrated threshold, or where the runner-up is within its calibrated
    margin, "cannot tell for sure" with the two likeliest causes and what would decide between
    them. Only a text whose recognised lines are all harmless
    and that says nothing went wrong is left "nothing to fix"."""
    from tf_gpucheck.checks import causedocs
    from tf_gpucheck.reading import textmodel

    if model is textmodel.OFF:
        return []
    reader = model if model is not None else textmodel.load()
    if not isinstance(reader, textmodel.Model):
        return []
    named = [  # a build or platform without GPU support, in a text of no GPU, is a note only
        f
        for f in findings
        if f.cause
        and f.cause not in diagnosis.SYMPTOMS
        and (gpu_named or f.cause not in textual.NO_GPU_SUPPORT)
    ]
    if named or not lines:
        return []
    words = wanted.prose(classified)
    if _reads_as_reservation(classified, words):
        return [_reservation(known, matrix)]
    ranked = reader.probabilities(textmodel.features(lines, classified, stated))
    recognised = [line.rule for line in classified if line.rule is not None]
    only_noise = bool(recognised) and all(
        rule.kind in ("harmless", "good", "context") for rule in recognised
    )
    # what the words say went wrong, outside the lines the rules know (a harmless message such
    # as "Unable to register cuDNN factory" says "unable" too); read where it decides
    # a failure the writer names (OOM, a start that takes minutes) is one, whatever the lines;
    # a program's own log line (a timestamp, a level) is not the writer's words
    own = [w for w in words if not _LOGGED.search(w)]
    named_failure = any(_says(pattern, keys, own) for _c, pattern, keys in _NAMED_SYMPTOMS)
    # the writer says the GPU was wanted and not had ("list_physical_devices returns []")
    missed = wanted.says_gpu_missed(stated, classified, wanted.says_no_gpu_here(words))
    failed = named_failure or missed or _says(_FAILED, _FAILED_KEYS, words)
    shown = frozenset(s for line in classified if line.rule for s in line.rule.shows)
    causes = [
        (c, p) for c, p in ranked if c != "noise" and not _ruled_out(c, stated, matrix, shown)
    ]
    top, _p = ranked[0]
    placed = _at_the_place(_named_first(causes, words), stated)
    if not placed:
        return []  # every cause the model knows is ruled out by what the text states
    (code, p), (second, p2) = (*placed, ("", 0.0))[:2]
    # a failure the writer names goes first by the words; the model's own top two, nearly
    # level (under its calibrated margin), are a coin toss: both are named
    named_by_words = code != _at_the_place(causes, stated)[0][0]
    if top == "noise" and not failed:
        return []  # it reads as harmless, and nothing outside the known messages says otherwise
    if not failed and (
        any(f.status is Status.OK for f in findings) or _looks_fine(stated, classified)
    ):
        return []  # what it states was judged and fits, and nothing says otherwise
    if (
        only_noise
        and not named_failure
        and not _says(_SYMPTOM, _SYMPTOM_KEYS, words)
        and not _broke(classified)
        and not missed
    ):
        # the rules know every message here as harmless, and the writer names no symptom and
        # no GPU wanted and not had: words do not override them
        return []
    try:
        title = causedocs.doc(code).title
    except Exception:  # a model trained on a code this build no longer documents
        title = code
    fix = remedies.fix_for(known, matrix)(code, ())
    sure = p >= reader.threshold and top != "noise" and (named_by_words or p >= reader.margin * p2)
    if sure:
        summary = (
            f"no message here names a cause; the text as a whole reads as {code}: {title} ({p:.0%})"
        )
        status = Status.FAIL
    else:
        decider = commands.DECIDES[_DECIDER_OF.get(code, "other")]
        summary = (
            f"cannot tell for sure from the text: most likely {code} ({p:.0%})"
            + (f", else {second} ({p2:.0%})" if second else "")
            + f"; {decider}"
        )
        status = Status.WARN
    details = (
        "Read by the reader's model (words, character n-grams, recognised messages and stated "
        f"facts; {reader.trained_on}). The likeliest causes: "
        + ", ".join(f"{c} {q:.0%}" for c, q in causes[:3])
    )
    return [Finding("reading", status, summary, details, fix, code)]


def _reservation(known: diagnosis.Known, matrix: Matrix) -> Finding:
    """TensorFlow holding the GPU's memory, told as a worry: by design, nothing to fix."""
    code = "gpu_memory_reserved"
    return Finding(
        "reading",
        Status.INFO,
        "the text tells of TensorFlow holding (nearly) all of the GPU's memory: it reserves it "
        "by design when it starts and keeps it until the process ends; nothing to fix unless "
        "another process must share the GPU",
        "nvidia-smi shows what TensorFlow reserved, not what the model needs; no message here "
        "says the memory ran out (https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth).",
        remedies.fix_for(known, matrix)(code, ()),
        code,
    )


_IF_A_GPU = "if this machine has an NVIDIA GPU: "
"""How a finding from lines normal without a GPU starts, where nothing says there is one."""


def conditional_reading(
    lines: Sequence[str],
    findings: Sequence[Finding],
    classified: Sequence[logscan.LogLine],
    stated: textfacts.StatedFacts,
    model: object | None = None,
) -> list[Finding]:
    """Lines that are normal without a GPU and an error with one ("Could not load dynamic
    library 'libcudart.so.11.0'"), in a text that says neither: the text as a whole decides
    whether it reads as harmless. Where the reader's model does not read the text as harmless,
    the hint becomes "cannot tell for sure", with both readings and what decides between them:
    a text pasted as a problem is not answered "nothing to fix" unless it reads as harmless."""
    from tf_gpucheck.reading import textmodel

    hints = [f for f in findings if f.status is Status.INFO and f.summary.startswith(_IF_A_GPU)]
    if (
        not hints
        or model is textmodel.OFF
        or any(f.status in (Status.FAIL, Status.WARN) for f in findings)
    ):
        return []
    if wanted.says_no_gpu_here(wanted.said(classified)):
        return []  # the writer says there is no GPU there: the lines are what it prints then
    reader = model if model is not None else textmodel.load()
    if not isinstance(reader, textmodel.Model):
        return []
    ranked = reader.probabilities(textmodel.features(lines, classified, stated))
    if ranked[0][0] == "noise" and not _says(_FAILED, _FAILED_KEYS, wanted.prose(classified)):
        return []  # it reads as the harmless lines of a machine without a GPU, and says no more
    chance = dict(ranked)
    hint = max(hints, key=lambda f: chance.get(f.cause or "", 0.0))
    summary = (
        f"cannot tell for sure from the text whether this machine has an NVIDIA GPU for "
        f"TensorFlow: with one, {hint.summary.removeprefix(_IF_A_GPU)}; without one these lines "
        f"are normal (harmless: {chance.get('noise', 0.0):.0%}); {commands.DECIDES['driver']}"
    )
    return [dataclasses.replace(hint, status=Status.WARN, summary=summary)]

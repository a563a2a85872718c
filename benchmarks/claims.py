"""Every statement doctor makes, checked against the truth on real environments drawn at random.

    python benchmarks/claims.py --seed 1 --count 30 [--keep] [--only LAYOUT] [--json OUT]
    python benchmarks/claims.py --replay recipe.json      # rebuild one printed recipe

For each environment (a recipe from benchmarks/claims_recipes.py, built for real), this runs
``python -m tf_gpucheck doctor --json --python <env python> --cwd <user folder>`` as the user
would (their variables; sometimes with the environment activated and no --python; --no-tf on
most, TensorFlow imported on a share of those that have it), reads each statement doctor makes,
and checks it by experiment (/work/claims/CONTRACT.md, "the contract"):

- where a module comes from: the target's own ``importlib.util.find_spec`` run in the user's
  folder with the user's variables;
- which distributions are installed: ``importlib.metadata`` in the target, from a folder of its
  own (the user's variables kept, their folder not on the path);
- requirements: the installer's own check (``python -m pip check``; ``uv pip check`` where the
  environment has no pip);
- which library loads: a C program with the requesting library's RUNPATH (``$ORIGIN`` expanded)
  run with the user's LD_LIBRARY_PATH, ``dlopen(soname)`` then ``dlinfo(RTLD_DI_LINKMAP)``, and
  the version from the library's own call;
- device nodes: glob;
- the printed first fix: run on a hard-linked copy of the environment (``cp -al``) in the
  user's folder with the user's variables; it works when it exits 0, doctor on the copy no longer
  reports that cause, and nothing the recipe installed at a chosen version went down. The
  wheelhouse stands in for the index only where the user's pip uses one (pip's own option
  parser, run in their setting with the fix's variables, says so). A fix that needs a download
  the wheelhouse lacks is run as ``--dry-run`` (pip: without ``--report``) against the index
  instead, with its wheels kept in ``WHEELHOUSE-dry`` and given as find-links after the user's
  own (pip takes a file found there before the same file on an index: nothing is downloaded
  twice); driver, container and other host fixes are "not checkable".

Statements come from the contract's ``observed`` lists when doctor writes them, and from the
sentences doctor writes today (see TEXT_STATEMENTS: each extractor names the text it matches),
so a run on today's main gives the "before" figure. What cannot be observed from inside (whether
the host has a GPU) is counted apart as an unobserved statement made as fact.

A seed reproduces a run: recipes come from ``random.Random(f"gpucheck-claims/{seed}/{index}")``
and every listing is sorted; the wheelhouse must hold the same wheels.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


import claims_recipes as recipes
from claims_fixes import _FAMILIES_SIZED, FixResult, check_fix
from claims_oracle import Oracle, compare_cause, judge, oracle_causes
from claims_statements import Statement, run_doctor, statements

Json = dict[str, Any]

# --- one environment, a run -----------------------------------------------------------------


@dataclass
class EnvResult:
    index: int
    recipe: Json
    commands: list[str]
    build_seconds: float
    base_reused: bool
    failed_steps: list[str]
    doctor_seconds: float
    doctor_exit: int
    doctor_error: str
    no_tf: bool
    activated: bool
    statements: list[Statement]
    fix: FixResult
    doctor_cause: str | None
    oracle_causes: dict[str, str]
    cause_verdict: str
    oracle_seconds: float
    seconds: float
    doctor_command: list[str] = field(default_factory=list)
    requirement_fix: FixResult | None = None
    """Where the first cause is another (a container without a GPU comes first here), the fix
    doctor gives for its first cause of TensorFlow's requirements, run the same way: what the
    size of a change is judged on."""

    def as_json(self) -> Json:
        data = asdict(self)
        data["statements"] = [asdict(s) for s in self.statements]
        data["fix"] = asdict(self.fix)
        data["requirement_fix"] = asdict(self.requirement_fix) if self.requirement_fix else None
        return data

    @classmethod
    def from_json(cls, data: Json) -> EnvResult:
        fields = dict(data)
        fields["statements"] = [Statement(**s) for s in data["statements"]]
        fields["fix"] = FixResult(**data["fix"])
        sized = data.get("requirement_fix")
        fields["requirement_fix"] = FixResult(**sized) if sized else None
        return cls(**fields)

    def sized(self) -> FixResult | None:
        """The fix whose size was judged: the first, else the requirement one; else the one the
        oracle could not judge (with its reason)."""
        asked = [f for f in (self.fix, self.requirement_fix) if f is not None and f.size]
        judged = [f for f in asked if not f.size.startswith("unjudged")]
        return (judged or asked)[0] if asked else None


def check_environment(
    index: int, recipe: Json, builder: recipes.Builder, gpucheck_python: str, *, fixes: bool = True
) -> EnvResult:
    start = time.monotonic()
    built = builder.build(recipe)
    failed = [
        f"{' '.join(r.command)[:160]} -> {r.returncode}: {r.output_tail.splitlines()[-1] if r.output_tail else ''}"
        for r in built.steps
        if r.returncode != 0
    ]
    no_tf = bool(recipe["doctor"]["no_tf"])
    activated = bool(recipe["user"].get("activate"))
    doctor = run_doctor(built, gpucheck_python, no_tf=no_tf, activated=activated)
    t_oracle = time.monotonic()
    oracle = Oracle(built, builder.root / "scratch", builder.tools)
    found = statements(doctor.report) if doctor.report else []
    for statement in found:
        judge(statement, oracle)
    truth = oracle_causes(oracle)
    oracle_seconds = time.monotonic() - t_oracle
    first = (doctor.report or {}).get("first_fix")
    doctor_cause = first.get("cause") if isinstance(first, dict) else None
    if doctor.report is None:
        fix = FixResult("none", None, None, "doctor gave no JSON")
    elif fixes:
        fix = check_fix(
            built, doctor.report, gpucheck_python, no_tf=no_tf, activated=activated, oracle=oracle
        )
    else:
        fix = FixResult("not_checked", None, doctor_cause, "--no-fixes")
    requirement_fix = None
    if fixes and doctor.report is not None and doctor_cause not in _FAMILIES_SIZED:
        # the first of TensorFlow's requirements among the causes (behind what only the host can
        # change, no GPU device or driver here, or a CUDA library the same line also installs):
        # its fix runs too, and is judged for its size
        later = next(
            (c for c in doctor.report.get("causes") or [] if c.get("cause") in _FAMILIES_SIZED),
            None,
        )
        if later is not None and later.get("fix"):
            as_first = {**doctor.report, "first_fix": later}
            requirement_fix = check_fix(
                built, as_first, gpucheck_python, no_tf=no_tf, activated=activated, oracle=oracle
            )
    for statement in found:
        if statement.kind == "proof":
            status = statement.claim.get("status")
            if status == "refused":
                statement.verdict, statement.truth = (
                    "false",
                    "a refused fix is printed as the first fix",
                )
            elif status == "proven" and fix.status in ("works", "works_dry_run"):
                statement.verdict, statement.truth = "true", fix.status
            elif status == "proven" and fix.status == "fails" and "refuses" in fix.why:
                statement.verdict, statement.truth = "false", fix.why
    return EnvResult(
        index=index,
        recipe=recipe,
        commands=recipes.commands(recipe),
        build_seconds=built.seconds,
        base_reused=built.base_reused,
        failed_steps=failed,
        doctor_seconds=doctor.seconds,
        doctor_exit=doctor.returncode,
        doctor_error="" if doctor.report else doctor.stderr_tail,
        no_tf=no_tf,
        activated=activated,
        statements=found,
        fix=fix,
        doctor_cause=doctor_cause,
        oracle_causes=truth,
        cause_verdict=compare_cause(doctor_cause, truth) if doctor.report else "no_report",
        oracle_seconds=oracle_seconds,
        seconds=time.monotonic() - start,
        doctor_command=doctor.command,
        requirement_fix=requirement_fix,
    )


def check_here(
    target: str, cwd: Path, gpucheck_python: str, scratch: Path, *, no_tf: bool = False
) -> EnvResult:
    """Every statement doctor makes about an environment that already exists (a real machine's,
    a GPU machine's), judged by the same experiments in the user's folder with the variables of
    this process. Nothing is built and nothing is changed: the first fix is not run (its
    installer's dry run is, where doctor states what the installer said)."""
    start = time.monotonic()
    user_env = dict(os.environ)
    recipe: Json = {
        "layout": "here",
        "python": "",
        "target": target,
        "cwd": str(cwd),
        "doctor": {"no_tf": no_tf},
        "user": {},
    }
    built = recipes.Built.existing(recipe, scratch / "w", target, cwd, user_env)
    doctor = run_doctor(built, gpucheck_python, no_tf=no_tf, activated=False)
    t_oracle = time.monotonic()
    oracle = Oracle(built, scratch / "scratch", recipes.CACHE / "bin")
    found = statements(doctor.report) if doctor.report else []
    for statement in found:
        judge(statement, oracle)
    truth = oracle_causes(oracle)
    first = (doctor.report or {}).get("first_fix")
    doctor_cause = first.get("cause") if isinstance(first, dict) else None
    fix = FixResult(
        "not_checked",
        first.get("fix") if isinstance(first, dict) else None,
        doctor_cause,
        "an existing environment: its first fix is not run",
    )
    return EnvResult(
        index=0,
        recipe=recipe,
        commands=[],
        build_seconds=0.0,
        base_reused=False,
        failed_steps=[],
        doctor_seconds=doctor.seconds,
        doctor_exit=doctor.returncode,
        doctor_error="" if doctor.report else doctor.stderr_tail,
        no_tf=no_tf,
        activated=False,
        statements=found,
        fix=fix,
        doctor_cause=doctor_cause,
        oracle_causes=truth,
        cause_verdict=compare_cause(doctor_cause, truth) if doctor.report else "no_report",
        oracle_seconds=time.monotonic() - t_oracle,
        seconds=time.monotonic() - start,
        doctor_command=doctor.command,
    )


def summarize(results: Sequence[EnvResult]) -> Json:
    by_kind: dict[str, Counter[str]] = {}
    for result in results:
        for s in result.statements:
            by_kind.setdefault(s.kind, Counter())[s.verdict] += 1
    checked = sum(c["true"] + c["false"] for c in by_kind.values())
    fixes = Counter(r.fix.status for r in results)
    causes = Counter(r.cause_verdict for r in results)

    def stats(values: list[float]) -> Json:
        if not values:
            return {}
        return {
            "median": round(statistics.median(values), 1),
            "mean": round(statistics.mean(values), 1),
            "max": round(max(values), 1),
        }

    return {
        "environments": len(results),
        "doctor_without_json": sum(1 for r in results if r.doctor_error),
        "statements_checked": checked,
        "statements_by_source": dict(
            sorted(
                Counter(
                    s.source
                    for r in results
                    for s in r.statements
                    if s.verdict in ("true", "false")
                ).items()
            )
        ),
        "false_statements": sum(c["false"] for c in by_kind.values()),
        "unobserved_statements": sum(c["unobserved"] for c in by_kind.values()),
        "unchecked_statements": sum(c["unchecked"] for c in by_kind.values()),
        "by_kind": {k: dict(sorted(v.items())) for k, v in sorted(by_kind.items())},
        "first_fixes": dict(sorted(fixes.items())),
        "requirement_fixes": dict(
            sorted(Counter(r.requirement_fix.status for r in results if r.requirement_fix).items())
        ),
        "first_fix_size": dict(
            sorted(
                Counter(
                    sized.size.split(":")[0] for r in results if (sized := r.sized()) is not None
                ).items()
            )
        ),
        "first_cause": dict(sorted(causes.items())),
        "seconds": {
            "total": stats([r.seconds for r in results]),
            "build": stats([r.build_seconds for r in results]),
            "doctor": stats([r.doctor_seconds for r in results]),
            "oracle": stats([r.oracle_seconds for r in results]),
            "fix": stats([r.fix.seconds for r in results if r.fix.seconds]),
        },
    }


def print_report(
    results: Sequence[EnvResult], summary: Json, out: Callable[[str], None] = print
) -> None:
    out("")
    out(
        f"environments built: {summary['environments']}  (doctor gave no JSON: {summary['doctor_without_json']})"
    )
    out(
        f"statements checked: {summary['statements_checked']}  by source: {summary['statements_by_source']}"
    )
    out(f"false statements: {summary['false_statements']}")
    out(
        f"unobserved statements made as fact: {summary['unobserved_statements']}  "
        f"(not checkable by this oracle: {summary['unchecked_statements']})"
    )
    out("")
    out(f"{'kind':20} {'true':>6} {'false':>6} {'unchecked':>10} {'unobserved':>11}")
    for kind, counts in summary["by_kind"].items():
        out(
            f"{kind:20} {counts.get('true', 0):>6} {counts.get('false', 0):>6} "
            f"{counts.get('unchecked', 0):>10} {counts.get('unobserved', 0):>11}"
        )
    false = [(r, s) for r in results for s in r.statements if s.verdict == "false"]
    if false:
        out("\nfalse statements (each with the recipe that rebuilds its environment):")
    for result, s in false:
        out(f"\n  env {result.index} [{result.recipe['layout']}] {s.check} ({s.kind}, {s.source}):")
        out(f"    said:  {s.said}")
        out(f"    truth: {s.truth}")
        out(f"    recipe: {json.dumps(result.recipe, sort_keys=True)}")
    fixes = summary["first_fixes"]
    out("\nfirst fixes: " + ", ".join(f"{k} {v}" for k, v in fixes.items()))
    later = summary.get("requirement_fixes") or {}
    if later:
        out(
            "requirement fixes run where another cause came first: "
            + ", ".join(f"{k} {v}" for k, v in later.items())
        )
    sizes = summary.get("first_fix_size") or {}
    out(
        "requirement fixes (the first, else the first of a requirement cause) against the "
        "oracle's smallest change: "
        + (", ".join(f"{k} {v}" for k, v in sizes.items()) or "none judged")
    )
    for r in results:
        sized = r.sized()
        if sized is not None and sized.size.startswith(("larger", "unjudged")):
            out(
                f"  env {r.index} [{r.recipe['layout']}] {sized.cause}: {sized.fix}\n      -> {sized.size}"
            )
        if r.requirement_fix is not None and r.requirement_fix.status == "fails":
            out(
                f"  env {r.index} [{r.recipe['layout']}] (requirement fix) {r.requirement_fix.cause}: "
                f"{r.requirement_fix.fix}\n      -> {r.requirement_fix.why}"
            )
        if r.fix.status == "fails":
            out(
                f"  env {r.index} [{r.recipe['layout']}] {r.fix.cause}: {r.fix.fix}\n      -> {r.fix.why}"
            )
    out(
        "first cause vs the oracle's: "
        + ", ".join(f"{k} {v}" for k, v in summary["first_cause"].items())
    )
    for r in results:
        if r.cause_verdict in ("disagrees", "missed"):
            out(
                f"  env {r.index} [{r.recipe['layout']}] doctor: {r.doctor_cause}; oracle: {sorted(r.oracle_causes)}"
            )
    sec = summary["seconds"]
    out(
        "time per env (s): "
        + "; ".join(
            f"{k} median {v['median']} mean {v['mean']} max {v['max']}" for k, v in sec.items() if v
        )
    )


_FINGERPRINT = """
import hashlib, os, sys
import tf_gpucheck
root = os.path.dirname(tf_gpucheck.__file__)
h = hashlib.sha256()
for folder, dirs, files in sorted(os.walk(root)):
    dirs.sort()
    for name in sorted(files):
        if name.endswith((".py", ".yaml", ".json", ".txt")):
            h.update(os.path.relpath(os.path.join(folder, name), root).encode())
            with open(os.path.join(folder, name), "rb") as f:
                h.update(f.read())
print(tf_gpucheck.__version__ + "+" + h.hexdigest()[:16])
"""


def fingerprint(gpucheck_python: str) -> str:
    """The gpucheck that runs doctor, by its version and a hash of its files: a resumed run must
    run the very same code."""
    out = subprocess.run(
        [gpucheck_python, "-c", _FINGERPRINT], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def write_json(
    path: Path, args: argparse.Namespace, results: Sequence[EnvResult], summary: Json | None = None
) -> None:
    data = {
        "seed": args.seed,
        "count": len(results),
        "gpucheck_python": args.gpucheck_python,
        "gpucheck_fingerprint": args.fingerprint,
        "summary": summary or summarize(results),
        "environments": [r.as_json() for r in results],
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True, default=str))
    tmp.replace(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--start", type=int, default=0, help="index of the first environment")
    parser.add_argument("--only", help=f"one layout: {', '.join(sorted(recipes.LAYOUTS))}")
    parser.add_argument("--light", action="store_true", help="no TensorFlow: small wheels only")
    parser.add_argument("--tf-pool", choices=("default", "all"), default="default")
    parser.add_argument("--keep", action="store_true", help="keep every environment (kept/NNNN)")
    parser.add_argument("--json", type=Path, help="write every environment and statement here")
    parser.add_argument("--replay", type=Path, help="build the recipe(s) of this JSON file")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with the run in --json: its environments are kept and not built again "
        "(the same seed and the very same gpucheck, or it stops)",
    )
    parser.add_argument(
        "--report", type=Path, help="print the report of a --json file (of an interrupted run too)"
    )
    parser.add_argument("--workdir", type=Path, help="where to build (default: a temporary folder)")
    parser.add_argument("--wheelhouse", type=Path, default=recipes.CACHE / "wheels")
    parser.add_argument(
        "--gpucheck-python",
        default=sys.executable,
        help="the Python whose tf_gpucheck runs doctor (default: this one)",
    )
    parser.add_argument("--no-fixes", action="store_true", help="do not run the first fixes")
    parser.add_argument(
        "--here",
        metavar="PYTHON",
        help="judge doctor's statements about this existing interpreter (in --cwd, default the "
        "current folder, with this process's variables): nothing is built or run as a fix",
    )
    parser.add_argument("--cwd", type=Path, help="the user's folder for --here")
    parser.add_argument(
        "--max-bases",
        type=int,
        default=8,
        help="environments kept for reuse, per job (1.5-2 GB each)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="environments built and checked at once, each job in a folder of its own (job-K)",
    )
    args = parser.parse_args(argv)
    if args.report:
        done = [EnvResult.from_json(e) for e in json.loads(args.report.read_text())["environments"]]
        print_report(done, summarize(done))
        return 0
    if args.here:
        scratch = Path(tempfile.mkdtemp(prefix="gpucheck-claims-here-"))
        try:
            runs = [
                check_here(
                    args.here,
                    (args.cwd or Path.cwd()).resolve(),
                    args.gpucheck_python,
                    scratch,
                    no_tf=no_tf,
                )
                for no_tf in (True, False)
            ]
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for result in runs:
            result.index = int(not result.no_tf)
            result.recipe["layout"] = "here --no-tf" if result.no_tf else "here"
            for s in result.statements:
                print(f"{s.verdict:10} {s.kind:16} {s.said[:90]}\n{'':27}{s.truth[:160]}")
        args.seed = None
        args.fingerprint = fingerprint(args.gpucheck_python)
        if args.json:
            write_json(args.json, args, runs)
        print_report(runs, summarize(runs))
        return 1 if any(s.verdict == "false" for r in runs for s in r.statements) else 0
    available = tuple(sorted(recipes.pythons(), key=lambda v: tuple(int(p) for p in v.split("."))))
    pool = recipes.DEFAULT_POOL
    if args.tf_pool == "all":
        pool = tuple(sorted((py, d, v) for (d, v), pys in recipes.TF_WHEELS.items() for py in pys))
    grammar = recipes.Grammar(pool=pool, light=args.light, available_pythons=available)
    if args.replay:
        loaded = json.loads(args.replay.read_text())
        items = loaded if isinstance(loaded, list) else [loaded]
        todo = [(int(r.get("index", i)), r) for i, r in enumerate(items)]
    else:
        todo = [
            (i, recipes.draw(args.seed, i, grammar, args.only))
            for i in range(args.start, args.start + args.count)
        ]
    args.fingerprint = fingerprint(args.gpucheck_python)
    resumed: list[EnvResult] = []
    if args.resume:
        if not args.json or not args.json.exists():
            parser.error("--resume needs the --json file of the run to go on with")
        before = json.loads(args.json.read_text())
        if (
            before.get("seed") != args.seed
            or before.get("gpucheck_fingerprint") != args.fingerprint
        ):
            parser.error(
                f"{args.json} is seed {before.get('seed')} with gpucheck "
                f"{before.get('gpucheck_fingerprint')}; this is seed {args.seed} with "
                f"{args.fingerprint}: not the same run"
            )
        resumed = [EnvResult.from_json(e) for e in before["environments"]]
        done_indices = {r.index for r in resumed}
        todo = [(i, r) for i, r in todo if i not in done_indices]
        print(f"resuming: {len(resumed)} environments kept, {len(todo)} to go", file=sys.stderr)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="gpucheck-claims-"))
    root.mkdir(parents=True, exist_ok=True)
    jobs = max(1, args.jobs)
    wheels = recipes.Wheelhouse(args.wheelhouse, recipes.pythons())
    builders = [
        recipes.Builder(
            root if jobs == 1 else root / f"job-{k}",
            args.wheelhouse,
            max_bases=args.max_bases,
            wheels=wheels,
        )
        for k in range(jobs)
    ]
    lock = threading.Lock()
    print(
        f"run root {root}; gpucheck from {args.gpucheck_python}; wheelhouse {args.wheelhouse}; "
        f"{jobs} job(s)",
        file=sys.stderr,
    )
    results: list[EnvResult] = list(resumed)
    wall = time.monotonic()

    def one(index: int, recipe: Json, builder: recipes.Builder) -> None:
        result = check_environment(
            index, recipe, builder, args.gpucheck_python, fixes=not args.no_fixes
        )
        if args.keep:
            kept = root / "kept" / f"{index:04d}"
            kept.parent.mkdir(exist_ok=True)
            shutil.move(str(builder.w), kept)
            (kept / "recipe.json").write_text(json.dumps(recipe, indent=1, sort_keys=True))
        false = sum(1 for s in result.statements if s.verdict == "false")
        with lock:
            results.append(result)
            results.sort(key=lambda r: r.index)
            print(
                f"env {index:4} {recipe['layout']:18} py{recipe['python']:5} "
                f"{'tf ' if not result.no_tf else '   '}{'act ' if result.activated else '    '}"
                f"statements {len(result.statements):3} false {false:2} "
                f"cause {result.doctor_cause!s:26} fix {result.fix.status:14} {result.seconds:6.1f} s",
                file=sys.stderr,
                flush=True,
            )
            if args.json:  # after every environment: an interrupted run keeps what it did
                write_json(args.json, args, results)

    pending = list(todo)
    unmeasured: list[int] = []
    affine: dict[int, set[str]] = {id(b): set() for b in builders}

    def worker(builder: recipes.Builder) -> None:
        """Takes the next environment whose first TensorFlow install this job made before (its
        base is here: a hard-linked copy instead of a new install), else one no other job made,
        else the next. Environments finish out of order; the JSON is kept in index order."""
        while True:
            with lock:
                if not pending:
                    return
                keys = [builder.prefix(recipe) for _, recipe in pending]
                mine = affine[id(builder)]
                theirs = set().union(*(v for k, v in affine.items() if k != id(builder)))
                pick = next((i for i, k in enumerate(keys) if k is not None and k in mine), None)
                if pick is None:
                    pick = next((i for i, k in enumerate(keys) if k not in theirs), 0)
                index, recipe = pending.pop(pick)
                key = keys[pick]
                if key is not None:
                    mine.add(key)
            try:
                one(index, recipe, builder)
            except Exception as exc:  # the harness's own failure: not a measurement
                with lock:
                    unmeasured.append(index)
                    print(
                        f"env {index:4} not measured: {type(exc).__name__}: {exc} "
                        "(--resume builds it again)",
                        file=sys.stderr,
                        flush=True,
                    )

    try:
        if jobs == 1:
            worker(builders[0])
        else:
            with ThreadPoolExecutor(max_workers=jobs) as executor:
                for future in [executor.submit(worker, b) for b in builders]:
                    future.result()
    finally:
        for builder in builders:
            if builder.w.exists():
                shutil.rmtree(builder.w, ignore_errors=True)
        if not args.keep and args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    summary = summarize(results)
    summary["wall_seconds"] = round(time.monotonic() - wall, 1)
    summary["wheelhouse_download_seconds"] = round(wheels.seconds, 1)
    print_report(results, summary)
    print(
        f"wall {summary['wall_seconds']} s (wheelhouse downloads {summary['wheelhouse_download_seconds']} s)"
    )
    if unmeasured:
        print(
            f"not measured (the harness failed, see above; --resume builds them again): "
            f"{sorted(unmeasured)}"
        )
    if args.json:
        write_json(args.json, args, results, summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

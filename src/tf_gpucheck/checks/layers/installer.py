"""The target's installer: does it run? (Below everything a fix asks it to do.)"""

from __future__ import annotations

from tf_gpucheck.checks.findings import Finding, fail, ok, skip
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot


@check("installer", "The environment's installer runs")
def installer(snapshot: Snapshot, matrix: Matrix) -> Finding:
    info = snapshot.installer
    if info is None:
        return skip("installer", "not asked (a snapshot before schema 4, or --from a text)")
    if info.error:
        return skip("installer", info.error)
    crash = info.crash()
    if crash is not None:
        return fail(
            "installer",
            "installer_broken",
            f"{info.tool} {info.version or ''} crashes on this Python instead of answering: "
            f"{crash}".replace("  ", " "),
            "Asked offline (an install of a name no index has, with --dry-run --no-index): it "
            "ended in a traceback, so every install or uninstall with it fails the same way. "
            "Python's own ensurepip puts back the pip it ships, which runs on it.",
            commands.restore_pip(snapshot),
        )
    asked = [a for a in info.policy if a.accepts is not None]
    if not asked:
        return skip("installer", "its policy was not asked")
    return ok(
        "installer", f"{info.tool} {info.version or ''} answers (asked offline)".replace("  ", " ")
    )

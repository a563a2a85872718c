"""One fix's dry run, asked in a process of its own, its answer kept in the proof cache.

    python -m tf_gpucheck.installer.worker < request.json

Started detached by :class:`tf_gpucheck.installer.prover.Prover`: doctor may end before the
installer answers (a resolution of ``tensorflow[and-cuda]`` takes a minute); the answer is then
there for the next doctor and for ``gpucheck fix``. The dry run changes nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    from tf_gpucheck import _codec
    from tf_gpucheck.installer.operations import Operation
    from tf_gpucheck.installer.proof import Target
    from tf_gpucheck.installer.proofcache import ProofCache, ProofKey
    from tf_gpucheck.installer.prover import Prover

    try:
        request = json.loads(sys.stdin.read())
        key = ProofKey(str(request["key"]))
        cache = ProofCache(Path(request["cache"]))
        prover = Prover(
            _codec.from_data(Target, request["target"]),
            timeout_s=float(request["timeout_s"]),
            cache=cache,
            workers=False,
        )
        fix = str(request["fix"])
        operations = tuple(
            Operation(
                o["verb"],
                o["runner"],
                tuple(o["args"]),
                tuple(o["requirements"]),
                tuple((str(n), str(v)) for n, v in o["environ"]),
                python=o["python"],
            )
            for o in request.get("operations", ())
        )
        if "operations" in request:
            prover.submit_known(fix, (operations, str(request.get("why_not", ""))))
    except (ValueError, KeyError, TypeError):
        return 2
    timeout = float(request["timeout_s"])
    if not cache.claim(key, timeout):
        return 0  # another worker is asking the same question
    try:
        proof = prover._prove(fix)
        if proof is not None:
            cache.store(key, proof)
    finally:
        cache.release(key)
        prover.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

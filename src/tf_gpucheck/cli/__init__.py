"""The gpucheck command line: wiring only, one small module per command.

Each command turns its flags into domain objects through the domain's own parsers, calls the
library, and picks a renderer; commands import their domain code inside the function, so that
``gpucheck --help`` stays fast and never imports TensorFlow or NVML. The commands are
registered here, in the order ``gpucheck --help`` lists them.
"""

from tf_gpucheck.cli import bench, detect, doctor, explain, fix, fleet, lint, matrix, memory
from tf_gpucheck.cli._app import CliEnvironment, app, main, run

app.command(short_help="What is here: driver, GPUs, CUDA libraries, TensorFlow.")(detect.detect)
app.command(short_help="Every check, one verdict, the first thing to fix.")(doctor.doctor)
app.command(short_help="Apply doctor's package fixes: plan, proof, journal, undo.")(fix.fix)
app.command(short_help="Explain a log or a pasted report: causes and fixes.")(explain.explain)
app.command(short_help="Many nodes at once: verdicts, causes, the odd ones out.")(fleet.fleet)
app.command(short_help="Check Dockerfiles, Compose files and Kubernetes manifests.")(lint.lint)
app.command(short_help="The TensorFlow/CUDA/cuDNN/driver table; --recommend.")(matrix.matrix)
app.command("configure-memory", short_help="GPU memory growth, limits, virtual GPUs.")(
    memory.configure_memory
)
app.command("benchmark", short_help="CPU vs GPU Keras training speed.")(bench.benchmark)
app.command("bench", help="Alias of `gpucheck benchmark`.")(bench.benchmark)

__all__ = ["CliEnvironment", "app", "main", "run"]

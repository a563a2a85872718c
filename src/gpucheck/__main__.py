from gpucheck.cli import run

run()

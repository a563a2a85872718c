from tf_gpucheck.cli import run

run()

#!/bin/bash
# Record what gpucheck reads and measures on a real NVIDIA machine (tests/data/snapshots/real-gpu/).
#
# Run from the repository root on the GPU machine, with the wheels it lacks in .whl/ (gpucheck's
# own wheel, typer, keras, namex, optree), as root in a machine that is thrown away afterwards:
#     OUT=/some/folder bash scripts/record_gpu.sh
# SKIP_BENCH=1 leaves out the benchmarks (about 2.5 minutes of the GPU's time).
# Everything lands in $OUT/rec/ and, after each stage, in $OUT/rec.tgz.
set -u
OUT=${OUT:-/tmp/gpu-out}
R=$OUT/rec
mkdir -p "$R"
export PYTHONUNBUFFERED=1 COLUMNS=100 NO_COLOR=1
PY=${PY:-$(command -v python3)}
GC=("$PY" -m tf_gpucheck)
pack() { tar czf "$OUT/rec.tgz" -C "$OUT" rec; }
step() { # step NAME SECONDS COMMAND...: stdout to NAME, stderr to NAME.err, exit code and time kept
    local name=$1 limit=$2; shift 2
    local t0; t0=$(date +%s%N)
    timeout -k 5 "$limit" "$@" > "$R/$name" 2> "$R/$name.err"
    local rc=$?
    echo "$name rc=$rc ms=$((($(date +%s%N) - t0) / 1000000)) cmd=$*" | tee -a "$R/steps.txt"
}

{ date -u; uname -a; $PY -V; echo "python3: $PY"; } > "$R/machine.txt"
if [ -z "${SKIP_INSTALL:-}" ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl > "$R/install.txt" 2>&1
    echo "install rc=$?" | tee -a "$R/steps.txt"
    if ! "$PY" -c "import tf_gpucheck, optree" 2>> "$R/install.txt"; then  # a read-only environment
        $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >> "$R/install.txt" 2>&1
        export PYTHONPATH=/tmp/site
        echo "install --target /tmp/site rc=$?" | tee -a "$R/steps.txt"
    fi
fi

# 1. what nvidia-smi says, beside what gpucheck reads
step smi.txt 30 nvidia-smi
step smi-q.txt 30 nvidia-smi -q
step smi-q.xml 30 nvidia-smi -q -x
step smi-query.csv 30 nvidia-smi --query-gpu=index,name,driver_version,compute_cap,memory.total,memory.used,memory.free,pci.bus_id,mig.mode.current,uuid,persistence_mode,compute_mode --format=csv
step pip-freeze.txt 30 $PY -m pip list --format=freeze
step ldconfig.txt 10 sh -c "ldconfig -p | grep -Ei 'cuda|cudnn|nvidia|cublas|nvrtc|nvjitlink'"
step nvidia-libs.txt 30 sh -c "find /usr /opt /lib /lib64 /etc -xdev \( -name 'libcudart.so*' -o -name 'libcudnn.so*' -o -name 'libcublas.so*' -o -name 'libnvrtc.so*' -o -name 'libcuda.so*' -o -name 'libnvidia-ml.so*' -o -name 'libnvJitLink.so*' -o -name 'libcufft.so*' -o -name 'libcusparse.so*' -o -name 'libcusolver.so*' -o -name 'libcurand.so*' -o -name 'libnccl.so*' \) 2>/dev/null | sort"
step frameworks.txt 120 $PY -c "
import torch, jax
print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())
print('torch devices', [(torch.cuda.get_device_name(i), torch.cuda.get_device_capability(i)) for i in range(torch.cuda.device_count())])
print('jax', jax.__version__, jax.devices())
"
pack

# 2. gpucheck's readings: as is, no GPU visible, a GPU that does not exist
cd /tmp
step detect.json 120 "${GC[@]}" detect --json --redact
step detect.txt 120 "${GC[@]}" detect
step doctor.json 180 "${GC[@]}" doctor --json --redact
step doctor.txt 180 "${GC[@]}" doctor --verbose
step detect-cvd-none.json 120 env CUDA_VISIBLE_DEVICES=-1 "${GC[@]}" detect --json --redact
step doctor-cvd-none.json 180 env CUDA_VISIBLE_DEVICES=-1 "${GC[@]}" doctor --json --redact
step detect-cvd-absent.json 120 env CUDA_VISIBLE_DEVICES=5 "${GC[@]}" detect --json --redact
step doctor-cvd-absent.json 180 env CUDA_VISIBLE_DEVICES=5 "${GC[@]}" doctor --json --redact
step matrix-recommend.txt 60 "${GC[@]}" matrix --recommend
step matrix-recommend.json 60 "${GC[@]}" matrix --recommend --json
cd - > /dev/null
pack

# 3. a process holding GPU memory: NVML's processes and used memory against nvidia-smi's
$PY -c "
import time, torch
x = torch.empty(3 * 2**30, dtype=torch.uint8, device='cuda'); torch.cuda.synchronize()
open('/tmp/held', 'w').write('1'); time.sleep(90)" > "$R/holder.txt" 2>&1 &
HOLDER=$!
for _ in $(seq 60); do [ -e /tmp/held ] && break; sleep 1; done
step busy-smi-q.xml 30 nvidia-smi -q -x
cd /tmp
step busy-detect.json 120 "${GC[@]}" detect --json --redact --no-tf
cd - > /dev/null
kill $HOLDER 2> /dev/null; wait $HOLDER 2> /dev/null
pack

# 4. memory settings where TensorFlow is absent
cd /tmp
step memory-growth.json 120 "${GC[@]}" configure-memory --growth --json
step memory-limit.json 120 "${GC[@]}" configure-memory --limit 4096 --json
cd - > /dev/null
pack

# 5. every statement doctor makes here, judged by experiment (benchmarks/claims.py --here: the
# import system, the installer's check, the dynamic loader's own choice with a real driver)
cd /tmp
step claims-here.txt 300 "$PY" "$OLDPWD/benchmarks/claims.py" --here "$PY" --gpucheck-python "$PY" --cwd /tmp --json "$R/claims-here.json"
# the same with the user's LD_LIBRARY_PATH naming the pip wheels' cuDNN and CUDA runtime folders
# (a system cuDNN is in the loader cache too): the loader's choice changes, and must be said so
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
LDP=$(ls -d "$SITE"/nvidia/cudnn/lib "$SITE"/nvidia/cu*/lib 2> /dev/null | paste -sd:)
step claims-here-ldpath.txt 300 env LD_LIBRARY_PATH="$LDP" "$PY" "$OLDPWD/benchmarks/claims.py" --here "$PY" --gpucheck-python "$PY" --cwd /tmp --json "$R/claims-here-ldpath.json"
cd - > /dev/null
pack
[ -n "${SKIP_BENCH:-}" ] && { echo done; exit 0; }

# 6. the GPU benchmarks on JAX and PyTorch, and a plain model.fit of the same models
cd /tmp
step bench-jax.txt 240 "${GC[@]}" bench --backend jax --output "$R/bench-jax.json"
step bench-torch.txt 240 "${GC[@]}" bench --backend torch --output "$R/bench-torch.json"
cd - > /dev/null
pack
step plain-fit-jax.txt 120 env KERAS_BACKEND=jax $PY scripts/plain_fit.py mlp cnn
step plain-fit-torch.txt 120 env KERAS_BACKEND=torch $PY scripts/plain_fit.py mlp cnn
step smi-after.csv 30 nvidia-smi --query-gpu=index,name,memory.used,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
pack
echo done

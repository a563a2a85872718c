"""The CUDA library probe: where each library is found, and a real dlopen of each."""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import checks, doctor
from tests.probes.test_user_import import (
    METADATA,
    install_fake,
)
from tests.test_target import make_venv, site_packages
from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution
from tf_gpucheck.probes.libraries import LIBRARIES, probe_libraries


def _real_shared_library() -> str:
    """A shared library this machine really has, to copy under a CUDA library's name."""
    name = ctypes.util.find_library("z") or ctypes.util.find_library("m")
    if name is None:
        pytest.skip("no libz or libm to copy")
    for folder in (
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    ):
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    pytest.skip(f"cannot locate {name}")


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    folders = {
        "pip": tmp_path / "site-packages/nvidia/cudnn/lib",
        "ld": tmp_path / "ld",
        "cuda_home": tmp_path / "cuda/lib64",
        "system": tmp_path / "system",
    }
    for folder in folders.values():
        folder.mkdir(parents=True)
    return folders


def test_sources_versions_and_real_dlopen(tree: dict[str, Path], tmp_path: Path) -> None:
    real = _real_shared_library()
    # pip wheel: a real library under the cuDNN 9 name (loads, has no cudnnGetVersion)
    cudnn = tree["pip"] / "libcudnn.so.9"
    shutil.copy(real, cudnn)
    # LD_LIBRARY_PATH: a broken file under the cuBLAS name (dlopen fails for real)
    (tree["ld"] / "libcublas.so.12.5.3.2").write_bytes(b"not an ELF file")
    os.symlink("libcublas.so.12.5.3.2", tree["ld"] / "libcublas.so.12")
    # the ldconfig cache points at a real library under the libcuda name
    libcuda = tree["system"] / "libcuda.so.550.54.15"
    shutil.copy(real, libcuda)
    os.symlink(libcuda.name, tree["system"] / "libcuda.so.1")
    ldconfig = f"\tlibcuda.so.1 (libc6,x86-64) => {tree['system'] / 'libcuda.so.1'}\n"
    # CUDA_HOME holds a second cuBLAS that loses to LD_LIBRARY_PATH
    shutil.copy(real, tree["cuda_home"] / "libcublas.so.11")

    facts = InterpreterFacts(
        "3.11.7",
        "/venv/bin/python",
        (RawDistribution("nvidia-cudnn-cu12", "9.3.0.75", None, (str(cudnn),)),),
    )
    env = {"LD_LIBRARY_PATH": str(tree["ld"]), "CUDA_HOME": str(tmp_path / "cuda")}
    info = probe_libraries(facts, env, platform="linux", ldconfig_output=ldconfig)
    by_name = {lib.name: lib for lib in info.libraries}
    assert list(by_name) == list(LIBRARIES)

    assert by_name["libcudnn"].locations[0].source == "pip"
    assert by_name["libcudnn"].locations[0].package == "nvidia-cudnn-cu12"
    assert by_name["libcudnn"].loadable is True
    assert by_name["libcudnn"].version == "9"  # from the file name: the copy has no cudnnGetVersion

    cublas = by_name["libcublas"]
    assert [loc.source for loc in cublas.locations] == ["ld_library_path", "cuda_home"]
    assert cublas.locations[0].file_version == "12.5.3.2"
    assert cublas.loadable is False
    assert cublas.load_error is not None
    assert "libcublas.so.12" in cublas.load_error  # dlopen's own words, verbatim

    assert by_name["libcuda"].locations[0].source == "ldconfig"
    assert by_name["libcuda"].locations[0].file_version == "550.54.15"
    assert by_name["libcuda"].loadable is True

    assert by_name["libnccl"].locations == ()
    assert by_name["libnccl"].loadable is None


def test_libcublaslt_is_not_mistaken_for_libcublas(tree: dict[str, Path]) -> None:
    (tree["ld"] / "libcublasLt.so.12").write_bytes(b"x")
    info = probe_libraries(
        InterpreterFacts("3.11", "/p", ()),
        {"LD_LIBRARY_PATH": str(tree["ld"])},
        platform="linux",
        ldconfig_output="",
        load=False,
    )
    by_name = {lib.name: lib for lib in info.libraries}
    assert by_name["libcublas"].locations == ()
    assert len(by_name["libcublasLt"].locations) == 1


def test_not_linux_is_recorded_not_searched() -> None:
    info = probe_libraries(InterpreterFacts("3.11", "/p", ()), {}, platform="darwin")
    assert info.probed is False
    assert info.reason is not None
    assert "darwin" in info.reason


CRASH_ON_LOAD = r"""
#include <signal.h>
__attribute__((constructor)) static void crash_on_load(void) { raise(SIGBUS); }
"""


def test_a_library_that_crashes_the_loader_is_named(tmp_path: Path) -> None:
    # A real shared library whose load kills the process with SIGBUS, on LD_LIBRARY_PATH
    # next to a good one: the one load test dies, each library is then loaded alone.
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the crashing library")
    source = tmp_path / "crash.c"
    source.write_text(CRASH_ON_LOAD)
    folder = tmp_path / "lib"
    folder.mkdir()
    import subprocess

    subprocess.run(
        [compiler, "-shared", "-fPIC", "-o", str(folder / "libcublas.so.12"), str(source)],
        check=True,
    )
    shutil.copy(_real_shared_library(), folder / "libcufft.so.11")
    info = probe_libraries(
        InterpreterFacts("3.11.7", "/venv/bin/python", ()),
        {"LD_LIBRARY_PATH": str(folder)},
        ldconfig_output="",
    )
    by_name = {lib.name: lib for lib in info.libraries}
    assert by_name["libcublas"].loadable is False
    assert by_name["libcublas"].load_error == "loading it killed by SIGBUS"
    assert by_name["libcufft"].loadable is True

    from tests.conftest import scenario
    from tf_gpucheck.checks import run_checks
    from tf_gpucheck.matrix import load_matrix

    base = scenario("two-a100")
    import dataclasses

    snapshot = dataclasses.replace(base, libraries=info)
    finding = run_checks(snapshot, load_matrix(), checks=["cuda_libraries"]).findings[0]
    assert finding.cause == "library_crashes_loader"
    assert str(folder / "libcublas.so.12") in finding.summary
    assert finding.fix is not None
    assert finding.fix.startswith(f"remove {folder} from LD_LIBRARY_PATH")


CUDNN_SHIM = r"""
#include <dlfcn.h>
#include <stddef.h>
/* cuDNN 9's libcudnn.so.9 is a shim: it opens its sub-libraries by SONAME */
size_t cudnnGetVersion(void) {
    void *graph = dlopen("libcudnn_graph.so.9", RTLD_NOW);
    if (!graph) return 0;
    size_t (*version)(void) = (size_t (*)(void))dlsym(graph, "graph_version");
    return version ? version() : 0;
}
"""

CUDNN_GRAPH = r"""
#include <stddef.h>
size_t graph_version(void) { return VERSION; }
"""


def test_each_copy_of_a_library_reports_its_own_version(tmp_path: Path) -> None:
    # Real libraries built as cuDNN 9 is: the pip wheel's libcudnn.so.9 (9.19.0) and the
    # system's (9.14.0, in the loader cache), each opening its libcudnn_graph.so.9 by SONAME
    # from its own folder. Loaded in one process, the second copy got the first one's graph
    # library (the loader had that SONAME already) and reported 9.14.0: seen on a real H200
    # machine, where torch.backends.cudnn.version() said 91900.
    import subprocess

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the libraries")
    shim, graph = tmp_path / "shim.c", tmp_path / "graph.c"
    shim.write_text(CUDNN_SHIM)
    graph.write_text(CUDNN_GRAPH)
    pip = tmp_path / "site-packages/nvidia/cudnn/lib"
    system = tmp_path / "lib/x86_64-linux-gnu"
    for folder, number in ((pip, 91900), (system, 91400)):
        folder.mkdir(parents=True)
        subprocess.run(
            [
                compiler,
                "-shared",
                "-fPIC",
                f"-DVERSION={number}",
                "-o",
                str(folder / "libcudnn_graph.so.9"),
                str(graph),
                "-Wl,-soname,libcudnn_graph.so.9",
            ],
            check=True,
        )
        subprocess.run(
            [
                compiler,
                "-shared",
                "-fPIC",
                "-o",
                str(folder / "libcudnn.so.9"),
                str(shim),
                "-ldl",
                "-Wl,-soname,libcudnn.so.9",
                "-Wl,--enable-new-dtags,-rpath,$ORIGIN",
            ],
            check=True,
        )
    facts = InterpreterFacts(
        "3.12.3",
        "/venv/bin/python",
        (RawDistribution("nvidia-cudnn-cu13", "9.19.0.56", None, (str(pip / "libcudnn.so.9"),)),),
    )
    ldconfig = f"\tlibcudnn.so.9 (libc6,x86-64) => {system / 'libcudnn.so.9'}\n"
    info = probe_libraries(facts, {}, platform="linux", ldconfig_output=ldconfig)
    cudnn = next(lib for lib in info.libraries if lib.name == "libcudnn")
    assert [loc.path for loc in cudnn.locations] == [
        str(pip / "libcudnn.so.9"),
        str(system / "libcudnn.so.9"),
    ]
    assert cudnn.loaded_path == str(pip / "libcudnn.so.9")
    assert cudnn.version == "9.19.0"
    # with no TensorFlow asking, the loader's own order takes the cache's: the system's copy
    assert [(r.path, r.version) for r in cudnn.resolutions] == [
        (str(system / "libcudnn.so.9"), "9.14.0")
    ]


def test_a_large_librarys_reading_is_kept_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TensorFlow's libraries are read once per identity (real path, size, modification time):
    the next doctor takes the kept reading; a reinstalled file (new time) is read again."""

    from tf_gpucheck.probes import elf

    source = Path(sys.executable).resolve()
    big = tmp_path / "libbig.so"
    shutil.copyfile(source, big)
    with open(big, "ab") as handle:  # past the size from which readings are kept
        handle.write(b"\0" * elf.KEEP_FROM_BYTES)
    first = elf.read_dynamic(str(big))
    assert first is not None
    assert first == elf._read(str(source), False)
    calls: list[str] = []

    def counted(path: str, symbols: bool) -> elf.Dynamic | None:
        calls.append(path)
        return None

    monkeypatch.setattr(elf, "_read", counted)
    assert elf.read_dynamic(str(big)) == first
    assert calls == []
    stat = big.stat()
    os.utime(big, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert elf.read_dynamic(str(big)) is None
    assert calls == [str(big)]


CUDNN_STUB = """
#include <stddef.h>
size_t cudnnGetVersion(void) { return VERSION; }
"""


def _shared(path: Path, soname: str, source: str, *flags: str) -> None:
    c = path.with_suffix(".c")
    c.write_text(source)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", *flags, "-o", str(path), str(c)],
        check=True,
    )


@pytest.mark.slow
def test_the_library_the_loader_takes_not_the_first_file_by_name(tmp_path: Path) -> None:
    """cuDNN 8 and cuDNN 9 share one folder (nvidia-cudnn-cu11 and -cu12 both installed); a
    TensorFlow 2.21 (cuDNN 9) finds it through its RUNPATH. The check reads the file the loader
    takes for libcudnn.so.9, and the version that file's own cudnnGetVersion reports."""
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler here")
    python = make_venv(tmp_path / "venv")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text())  # fmt: skip
    lib = site / "nvidia" / "cudnn" / "lib"
    lib.mkdir(parents=True)
    _shared(lib / "libcudnn.so.8", "libcudnn.so.8", CUDNN_STUB.replace("VERSION", "8907"))
    _shared(lib / "libcudnn.so.9", "libcudnn.so.9", CUDNN_STUB.replace("VERSION", "90300"))
    _shared(
        site / "tensorflow" / "libtensorflow_framework.so.2",
        "libtensorflow_framework.so.2",
        "int tf_stub(void) { return 0; }\n",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/cudnn/lib",
    )
    for pip_dist, name in (
        ("nvidia-cudnn-cu11", "libcudnn.so.8"),
        ("nvidia-cudnn-cu12", "libcudnn.so.9"),
    ):
        info = site / f"{pip_dist.replace('-', '_')}-0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {pip_dist}\nVersion: 0\n\n")
        (info / "RECORD").write_text(f"nvidia/cudnn/lib/{name},,\n")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path)
    found = checks(data)["cudnn"]
    observed = found["observed"][0]
    assert observed["soname"] == "libcudnn.so.9"
    assert observed["path"] == str(lib / "libcudnn.so.9")
    assert observed["via"] == "runpath"
    assert observed["version"] == "9.3.0"
    assert found["status"] == "ok", found
    # the oracle: the dynamic loader itself, with the requester's RUNPATH
    probe = tmp_path / "probe.c"
    probe.write_text(
        "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <link.h>\n#include <stdio.h>\n"
        'int main(void){void*h=dlopen("libcudnn.so.9",RTLD_NOW);struct link_map*m;'
        "if(!h||dlinfo(h,RTLD_DI_LINKMAP,&m))return 1;puts(m->l_name);return 0;}\n"
    )
    exe = tmp_path / "probe"
    subprocess.run(
        ["gcc", str(probe), "-o", str(exe), "-ldl",
         f"-Wl,--enable-new-dtags,-rpath,{lib}"], check=True,
    )  # fmt: skip
    loaded = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.strip()
    assert os.path.realpath(loaded) == os.path.realpath(observed["path"])

"""Where the installer looks for packages: no-index and offline settings, pip config debug read in pip's order, wheelhouses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import first_environment_fix
from tests.fix.test_fix import versions
from tests.helpers import doctor, tiny_wheel, venv_with_tensorflow_cpu
from tests.installer.test_writer import uv_venv


@pytest.mark.slow
def test_a_pip_set_to_no_index_gets_fixes_that_lift_it_for_one_command(tmp_path: Path) -> None:
    """A user's pip.conf says ``no-index = true``: every install from the index fails with
    "from versions: none", however right the requirement. doctor reads pip's own ``pip config
    debug`` in the user's setting, says where the setting is, and prints each install with
    ``PIP_NO_INDEX=0``; the real installer refuses the plain command and accepts that one."""
    from tests.installer.shellwords import read_command
    from tf_gpucheck.installer.proof import Target, prove

    python = venv_with_tensorflow_cpu(tmp_path)
    home = tmp_path / "home"
    config = home / ".config" / "pip" / "pip.conf"
    config.parent.mkdir(parents=True)
    config.write_text("[global]\nno-index = true\n")
    # no find-links either (pip skips an empty variable): nothing local could satisfy an install
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, HOME=str(home), PIP_FIND_LINKS="")
    installs = [f["fix"] for f in data["findings"] if f["fix"] and "pip install" in f["fix"]]
    assert installs, data["findings"]
    for fix in installs:
        for part in fix.split("  #")[0].split(" && "):
            assert ("pip install" in part) == part.startswith("PIP_NO_INDEX=0 "), fix
        assert f"no-index = true in {config}" in fix, fix  # where it is set, said on the line

    # the installer's own answer, with the user's config, against a package index (a local one)
    index = tmp_path / "simple"
    tiny_wheel(index / "tiny-pkg")
    (index / "tiny-pkg" / "index.html").write_text(
        '<a href="tiny_pkg-1.0-py3-none-any.whl">tiny_pkg-1.0-py3-none-any.whl</a>'
    )
    environ = {**os.environ, "HOME": str(home), "PIP_INDEX_URL": index.as_uri()}
    environ.pop("PIP_NO_INDEX", None)
    environ.pop("PIP_FIND_LINKS", None)
    environ.pop("PIP_CONFIG_FILE", None)
    pip = versions(python)["pip"]
    plain, _, _ = read_command(f'{python} -m pip install "tiny-pkg==1.0"')
    lifted, _, why = read_command(f'PIP_NO_INDEX=0 {python} -m pip install "tiny-pkg==1.0"')
    assert not why
    assert lifted[0].environ == (("PIP_NO_INDEX", "0"),)
    refused = prove(plain[0], Target(str(python), {}, pip, environ, str(tmp_path)))
    assert refused.status == "refused", refused
    assert "from versions: none" in refused.reason or "No matching" in refused.reason
    proven = prove(lifted[0], Target(str(python), {}, pip, environ, str(tmp_path)))
    assert proven.status == "proven", proven
    assert proven.changes == {"tiny-pkg": (None, "1.0")}


@pytest.mark.slow
def test_pip_config_debug_is_read_in_pips_own_order() -> None:
    """The listing ``pip config debug`` prints (pip 23.2, this machine): a variable beats every
    file, ``[install]`` beats ``[global]``, a later file beats an earlier one, false is off."""
    from tf_gpucheck.probes.installer import read_config_debug

    listing = (
        "env_var:\n  PIP_CERT='/etc/ssl/certs/ca-certificates.crt'\n"
        "env:\n"
        "global:\n  /etc/xdg/pip/pip.conf, exists: True\n    global.no-index: true\n"
        "  /etc/pip.conf, exists: False\n"
        "site:\n  /venv/pip.conf, exists: False\n"
        "user:\n  /home/u/.pip/pip.conf, exists: False\n"
        "  /home/u/.config/pip/pip.conf, exists: True\n    install.no-index: false\n"
    )
    assert read_config_debug(listing) is None  # the user's [install] false beats the global true
    assert (
        read_config_debug(listing.replace("install.no-index: false", "global.no_index: yes"))
        == "no-index = yes in /home/u/.config/pip/pip.conf"
    )
    assert read_config_debug(listing.replace("    install.no-index: false\n", "")) == (
        "no-index = true in /etc/xdg/pip/pip.conf"
    )
    assert read_config_debug(listing.replace("env_var:\n", "env_var:\n  PIP_NO_INDEX='1'\n")) == (
        "PIP_NO_INDEX=1"
    )


@pytest.mark.slow
def test_pip_config_debug_settings_keep_files_and_variables_apart() -> None:
    """Every setting pip reads for install, from the listing ``pip config debug`` prints (pip
    23.2, this machine): the files' value (a later file over an earlier, ``[install]`` over
    ``[global]``, a value of several lines joined as pip splits a list) and, apart, the
    variable; an empty variable and ``PIP_CONFIG_FILE`` are not settings."""
    from tf_gpucheck.probes.installer import config_settings
    from tf_gpucheck.snapshot import InstallerSetting

    listing = (
        "env_var:\n  PIP_CONFIG_FILE='/home/u/more.conf'\n  PIP_TARGET=''\n"
        "  PIP_INDEX_URL='https://mirror.example/simple'\n"
        "env:\n  /home/u/more.conf, exists: True\n    install.prefix: /opt/p\n"
        "global:\n  /etc/pip.conf, exists: True\n    global.target: /srv/a\n"
        "    global.extra-index-url: \n    https://one.example/simple\n"
        "    https://two.example/simple\n"
        "site:\n  /venv/pip.conf, exists: False\n"
        "user:\n  /home/u/.config/pip/pip.conf, exists: True\n    install.target: /srv/b\n"
        "    global.index-url: https://files.example/simple\n"
    )
    found = set(config_settings(listing))
    assert found == {
        InstallerSetting("target", "/srv/b", "/home/u/.config/pip/pip.conf"),
        InstallerSetting("prefix", "/opt/p", "/home/u/more.conf"),
        InstallerSetting(
            "extra-index-url", "https://one.example/simple https://two.example/simple",
            "/etc/pip.conf",
        ),
        InstallerSetting("index-url", "https://files.example/simple",
                         "/home/u/.config/pip/pip.conf"),
        InstallerSetting("index-url", "https://mirror.example/simple", "PIP_INDEX_URL"),
    }  # fmt: skip


@pytest.mark.slow
def test_uv_set_offline_gets_installs_that_lift_it_for_one_command(tmp_path: Path) -> None:
    """A uv environment whose user has UV_OFFLINE=1: uv's own resolved settings (`uv pip
    install --show-settings`) say it is offline; each printed `uv pip install` carries
    UV_OFFLINE=0, which the real uv takes as going online for that install."""
    from tests.installer.shellwords import read_command
    from tf_gpucheck.installer.proof import Target, prove

    python = uv_venv(tmp_path / "uvenv")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, UV_OFFLINE="1")
    fix = first_environment_fix(data)["fix"]
    assert fix.startswith(f"UV_OFFLINE=0 uv pip install --python {python} "), fix
    assert "your uv is set not to use the package index (UV_OFFLINE=1)" in fix, fix

    # uv's own answer against an index that is not there: offline, it does not even try
    environ = {**os.environ, "UV_OFFLINE": "1", "UV_INDEX_URL": "http://127.0.0.1:9/simple"}
    environ["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    plain, _, _ = read_command(f'uv pip install --python {python} "tiny-pkg==1.0"')
    lifted, _, why = read_command(f'UV_OFFLINE=0 uv pip install --python {python} "tiny-pkg==1.0"')
    assert not why
    assert lifted[0].environ == (("UV_OFFLINE", "0"),)
    offline = prove(plain[0], Target(str(python), {}, None, environ, str(tmp_path)), 60)
    online = prove(lifted[0], Target(str(python), {}, None, environ, str(tmp_path)), 60)
    assert offline.status != "proven", offline
    assert online.status != "proven", online
    assert "offline" in offline.reason.lower() or "disabled" in offline.reason.lower(), offline
    assert "offline" not in online.reason.lower(), online
    assert "disabled" not in online.reason.lower(), online


@pytest.mark.slow
def test_a_no_index_pip_with_a_wheelhouse_of_its_own_keeps_it(tmp_path: Path) -> None:
    """no-index beside a find-links folder is a wheelhouse the user chose (an offline machine):
    where it holds what the install names, the install is printed as it is, the setting and
    how to lift it said on the line; where it holds none of it, pip would refuse the install
    as printed (seen pasted: "Could not find a version that satisfies the requirement"), so the
    install is printed with the setting lifted for it, and why."""
    from tests.installer.shellwords import read_command
    from tf_gpucheck.installer.proof import Target, prove

    python = venv_with_tensorflow_cpu(tmp_path)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    # only the names are read: pip reads a find-links folder's wheels by their file names
    (wheels / "tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl").write_bytes(b"")
    (wheels / "numpy-2.3.5.tar.gz").write_bytes(b"")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))  # fmt: skip
    fix = next(c for c in data["causes"] if c["cause"] == "tf_cpu_only_build")["fix"]
    assert "PIP_NO_INDEX=0 " not in fix.split("  #")[0], fix
    assert f"(PIP_NO_INDEX=1): it looks only in {wheels}" in fix, fix

    empty = tmp_path / "empty-wheels"
    empty.mkdir()
    (empty / "numpy-2.3.5.tar.gz").write_bytes(b"")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_NO_INDEX="1", PIP_FIND_LINKS=str(empty))  # fmt: skip
    fix = next(c for c in data["causes"] if c["cause"] == "tf_cpu_only_build")["fix"]
    code = fix.split("  #")[0]
    for part in code.split(" && "):
        assert ("pip install" in part) == part.startswith("PIP_NO_INDEX=0 "), fix
    assert f"(PIP_NO_INDEX=1): {empty} holds no tensorflow; PIP_NO_INDEX=0 before" in fix, fix
    # the real pip, in that setting, refuses the install as it would have been printed
    install = next(p for p in code.split(" && ") if "pip install" in p)
    plain, _, why = read_command(install.removeprefix("PIP_NO_INDEX=0 "))
    assert not why
    environ = {**os.environ, "HOME": str(tmp_path), "PIP_NO_INDEX": "1"}
    environ["PIP_FIND_LINKS"] = str(empty)
    pip = versions(python)["pip"]
    refused = prove(plain[0], Target(str(python), {}, pip, environ, str(tmp_path)))
    assert refused.status == "refused", refused
    assert "from versions: none" in refused.reason or "No matching" in refused.reason


@pytest.mark.slow
def test_a_wheelhouse_is_read_by_its_file_names(tmp_path: Path) -> None:
    from tf_gpucheck.probes.installer import wheelhouse_projects

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name in ("TensorFlow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl",
                 "ml_dtypes-0.5.4.tar.gz", "README.txt"):  # fmt: skip
        (wheels / name).write_bytes(b"")
    # a relative folder is the user's folder's; a folder that is not there adds nothing
    found = wheelhouse_projects(("wheels", str(tmp_path / "absent")), str(tmp_path))
    assert found == ("ml-dtypes", "tensorflow")
    assert wheelhouse_projects((f"file://{wheels}",), None) == ("ml-dtypes", "tensorflow")
    # what is not read is unknown, never "empty": a URL, a page, a name pip may read otherwise
    assert wheelhouse_projects(("https://example.org/wheels/",), None) is None
    (tmp_path / "page.html").write_text("<a href='x-1.0.tar.gz'>x</a>")
    assert wheelhouse_projects((str(tmp_path / "page.html"),), None) is None
    (wheels / "not-a-wheel.whl").write_bytes(b"")
    assert wheelhouse_projects((str(wheels),), None) is None

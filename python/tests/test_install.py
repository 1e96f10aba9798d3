"""The package installs with `make install` (under PREFIX, finding the
installed libsvpc by itself) and with pip, offline."""
import os
import subprocess
import sys

from conftest import ROOT, bin_dir


def clean_env():
    env = dict(os.environ)
    for k in ("SIMTRACE_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH"):
        env.pop(k, None)
    return env


PROBE = "import simtrace, sys; print(simtrace.__file__); print(simtrace._L._name); " \
        "t = simtrace.open(sys.argv[1]); print(len(t.stream()[:]))"


def test_make_install_finds_its_library(tmp_path, traces):
    prefix = tmp_path / "prefix"
    build = os.path.relpath(bin_dir(), ROOT)
    subprocess.run(["make", "-s", "-C", str(ROOT), "install", "PREFIX=%s" % prefix, "BUILD=%s" % build],
                   check=True, stdout=subprocess.DEVNULL)
    pydir = prefix / "lib/python3/dist-packages"
    env = clean_env()
    env["PYTHONPATH"] = str(pydir)
    # run from elsewhere, so that the source tree's package is not the one imported
    out = subprocess.run([sys.executable, "-c", PROBE, str(traces["one"])], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
    assert out[0].startswith(str(pydir)) and out[1] == str(prefix / "lib/libsvpc.so.0") and out[2] == "1"
    helpout = subprocess.run([str(prefix / "bin/simtrace-plot"), "--help"], cwd=tmp_path, env=clean_env(),
                             stdout=subprocess.PIPE, check=True).stdout.decode()
    assert "usage: simtrace-plot" in helpout
    subprocess.run(["make", "-s", "-C", str(ROOT), "uninstall", "PREFIX=%s" % prefix, "BUILD=%s" % build],
                   check=True)
    assert not (pydir / "simtrace").exists() and not (prefix / "bin/simtrace-plot").exists()


def test_pip_installs_offline(tmp_path, traces):
    target = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        "--no-deps", "--target", str(target), str(ROOT / "python")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout.decode()
    env = clean_env()
    env["PYTHONPATH"] = str(target)
    env["SIMTRACE_LIBRARY"] = str(bin_dir() / "libsvpc.so.0")
    out = subprocess.run([sys.executable, "-c", PROBE, str(traces["one"])], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
    assert out[0].startswith(str(target)) and out[2] == "1"
    assert (target / "bin/simtrace-plot").exists()

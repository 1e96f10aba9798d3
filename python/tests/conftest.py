"""Fixtures of the simtrace package's tests: the programs of the build
($SVPC_BIN, default build/ of this source tree), and traces made from the
repository's test data."""
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def bin_dir():
    return Path(os.environ.get("SVPC_BIN", ROOT / "build"))


def run(*args, check=True):
    """Run a program of the build; its standard output as bytes."""
    p = subprocess.run([str(bin_dir() / args[0])] + [str(a) for a in args[1:]], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (args, p.returncode, p.stderr.decode()))
    return p.stdout


@pytest.fixture(scope="session")
def traces(tmp_path_factory):
    """The BIOS read trace in frames of 40000 entries (8 frames), with an
    m64 copy of it (no data field) as a second stream; the repository's
    edge cases; wide.bochs imported (wide values)."""
    d = tmp_path_factory.mktemp("traces")
    raw = lzma.decompress((ROOT / "testdata/good/bios_read_300k.d64.xz").read_bytes())
    (d / "bios.d64").write_bytes(raw)
    import numpy as np
    m64 = np.frombuffer(raw, dtype="<u8").reshape(-1, 4)[:, :3].copy()
    (d / "bios.m64").write_bytes(m64.tobytes())
    run("simtrace-pack", "--frame-size=40000", "--stream=bios.read", d / "bios.d64", "--stream=bios.m64",
        "--type=m64", d / "bios.m64", "-o", d / "bios.sim")
    run("simtrace-pack", "--from=bochs", ROOT / "testdata/good/wide.bochs", "-o", d / "wide.sim")
    return {"bios": d / "bios.sim", "bios_raw": raw, "wide": d / "wide.sim", "dir": d,
            "one": ROOT / "testdata/good/edge-one-entry.sim",
            "no_frames": ROOT / "testdata/good/edge-stream-without-frames.sim",
            "empty": ROOT / "testdata/good/edge-empty.sim",
            "user": ROOT / "testdata/good/edge-user-type.sim",
            "mix8": ROOT / "testdata/good/encoder12-mix8.sim",
            "cmx_off": ROOT / "testdata/good/encoder13-cmx-off.sim",
            "bad": ROOT / "testdata/bad"}

"""simtrace-plot renders each plot of a small real trace: the PNG is of a
sensible size and not blank; SVG; ranges; usage and data errors."""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, bin_dir, run

PLOT = str(ROOT / "python/simtrace-plot")


def plot(*args, stdin=None, env=None):
    env = dict(os.environ if env is None else env, SVPC_BIN=str(bin_dir()))
    return subprocess.run([sys.executable, PLOT] + [str(a) for a in args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=stdin)


@pytest.fixture(scope="module")
def small(traces):
    """50000 BIOS reads in frames of 5000."""
    d = traces["dir"]
    (d / "small.d64").write_bytes(traces["bios_raw"][:50000 * 32])
    run("simtrace-pack", "--frame-size=5000", "--stream=cpu0.read", d / "small.d64", "-o", d / "small.sim")
    return d / "small.sim"


def not_blank(path, min_bytes=10000):
    import matplotlib.image as mpimg
    assert path.stat().st_size >= min_bytes, path.stat().st_size
    px = mpimg.imread(str(path))[:, :, :3]
    assert px.shape[0] > 200 and px.shape[1] > 400
    # a blank (one-colour) image has no variance; a figure with axes only
    # has little ink: ask for both variance and enough non-white pixels
    ink = (px.sum(axis=2) < 2.7).mean()
    assert px.std() > 0.05 and ink > 0.02, (px.std(), ink)
    return px, ink


@pytest.mark.parametrize("what", ["heatmap", "workingset", "predictors"])
def test_each_plot_renders(small, tmp_path, what):
    out = tmp_path / ("%s.png" % what)
    p = plot("--plot", what, "-o", out, small)
    assert p.returncode == 0, p.stderr.decode()
    not_blank(out)


def test_all_plots_svg_and_ranges(small, tmp_path):
    out = tmp_path / "all.svg"
    p = plot("-o", out, "--cycles=0:400000", small)
    assert p.returncode == 0, p.stderr.decode()
    text = out.read_text()
    assert text.startswith("<?xml") and "<svg" in text and text.count("<path") > 50
    png = tmp_path / "all.png"
    assert plot("-o", png, "--entries=1000:20000", "--max-pages=4", "--window=500", small).returncode == 0
    _, ink = not_blank(png)
    # the heat map's rows slice the address range when there are too many pages to rank
    heat_only = tmp_path / "h.png"
    assert plot("--plot=heatmap", "--max-pages=4", "-o", heat_only, small).returncode == 0
    not_blank(heat_only)


def test_plot_of_an_empty_range_and_errors(small, tmp_path, traces):
    out = tmp_path / "e.png"
    p = plot("--entries=10:10", "-o", out, small)
    assert p.returncode == 0 and out.exists(), p.stderr.decode()
    p = plot("--plot=pie", "-o", out, small)
    assert p.returncode == 2 and p.stderr.decode().startswith("simtrace-plot: unknown plot")
    p = plot("-o", tmp_path / "x.gif", small)
    assert p.returncode == 2 and ".png or .svg" in p.stderr.decode()
    p = plot("-s", "nope", "-o", out, small)
    assert p.returncode == 2 and "nope" in p.stderr.decode()
    p = plot("-o", out, traces["bad"] / "header-magic.sim")
    assert p.returncode == 1 and p.stderr.decode().startswith("simtrace-plot: ")
    p = plot("-o", out, traces["user"])
    assert p.returncode == 2 and "not a memory stream" in p.stderr.decode()


def test_plot_of_a_pipe(small, tmp_path, traces):
    """- and a pipe: copied to a temporary file, which is removed; the same
    figure as from the file."""
    tmpd = tmp_path / "tmpd"
    tmpd.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpd))
    ref = tmp_path / "file.png"
    assert plot("--title=t", "-o", ref, small).returncode == 0
    out = tmp_path / "stdin.png"
    with open(small, "rb") as f:
        p = plot("--title=t", "-o", out, "-", stdin=f, env=env)
    assert p.returncode == 0, p.stderr.decode()
    assert out.read_bytes() == ref.read_bytes()
    # a named pipe
    out2 = tmp_path / "fifo.png"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen("cat '%s' > '%s'" % (small, fifo), shell=True)
    p = plot("--title=t", "-o", out2, fifo, env=env)
    writer.wait()
    assert p.returncode == 0, p.stderr.decode()
    assert out2.read_bytes() == ref.read_bytes()
    assert list(tmpd.iterdir()) == []
    # bad data through a pipe: the input's name in the message, the copy removed
    with open(traces["bad"] / "header-magic.sim", "rb") as f:
        p = plot("-o", out, "-", stdin=f, env=env)
    assert p.returncode == 1 and p.stderr.decode().startswith("simtrace-plot: -"), p.stderr.decode()
    assert "simtrace-plot-" not in p.stderr.decode()
    assert list(tmpd.iterdir()) == []


def test_plot_of_a_cut_off_file_says_so(small, tmp_path):
    """A file without directory is plotted from its complete frames, and
    the plot says it is incomplete: on stderr and under the title."""
    cut = tmp_path / "cut.sim"
    whole = small.read_bytes()
    cut.write_bytes(whole[:len(whole) * 2 // 3])
    out = tmp_path / "cut.svg"
    p = plot("-o", out, cut)
    err = p.stderr.decode()
    assert p.returncode == 0, err
    assert err.startswith("simtrace-plot: %s: warning: no valid directory and footer" % cut), err
    assert "SimtraceWarning" not in err and err.count("\n") == 1
    assert "incomplete: no valid directory" in out.read_text()
    p = plot("-o", tmp_path / "whole.svg", small)
    assert p.returncode == 0 and p.stderr == b""


def coloured_columns(path):
    """The share of the image's columns holding a coloured pixel (a hit-rate
    line; text, axes and the dashed bits/entry line are grey or black)."""
    import matplotlib.image as mpimg
    px = mpimg.imread(str(path))[:, :, :3]
    coloured = (px.max(axis=2) - px.min(axis=2)) > 0.3
    return coloured.any(axis=0).mean()


@pytest.mark.parametrize("frame_size", [50000, 25000])
def test_predictor_panel_draws_the_last_frame(small, traces, tmp_path, frame_size):
    """A stream of one frame (as bochs-trace --workload linux writes) and
    one of two: the hit-rate lines run across the whole panel, the last
    frame included."""
    one = tmp_path / "frames.sim"
    (tmp_path / "e.d64").write_bytes(traces["bios_raw"][:50000 * 32])
    run("simtrace-pack", "--frame-size=%d" % frame_size, "--stream=cpu0.read", tmp_path / "e.d64", "-o", one)
    out = tmp_path / "pred.png"
    p = plot("--plot=predictors", "-o", out, one)
    assert p.returncode == 0, p.stderr.decode()
    # the panel is about 85% of the image's width
    assert coloured_columns(out) > 0.75, coloured_columns(out)

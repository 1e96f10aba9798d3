"""simtrace-plot: draw one stream of a simtrace container (PNG or SVG).

Plots (--plot, default all, stacked on one cycle axis):
  heatmap     accesses per page (rows) and cycle bin (columns), log colour
  workingset  distinct pages and cache lines per window of entries
  predictors  per frame: the predictors' hit rate of each field (the
              library's statistics, Stream.stats) and the stored bits per entry

FILE may be - (standard input) or a pipe: the plots read the stream more
than once, so it is first copied to a temporary file (the container as
stored, compressed), removed at the end.

Memory stays bounded whatever the stream's length: entries are read one
frame at a time and binned (the heat map's pages are ranked from one pass
over the range; past --max-pages distinct pages its rows are equal slices
of the address range instead).
"""
import argparse
import os
import shutil
import stat
import sys
import tempfile
import warnings

import numpy as np

import simtrace

PLOTS = ("heatmap", "workingset", "predictors")
FIELD_COLOURS = {"ip": "tab:blue", "cycle": "tab:orange", "meta": "tab:gray", "address": "tab:green",
                 "data": "tab:red"}


class UsageError(Exception):
    pass


def parse_range(text):
    lo, sep, hi = text.partition(":")
    if not sep:
        raise UsageError("invalid range '%s' (A:B, either end may be omitted)" % text)
    try:
        a = int(lo, 0) if lo else 0
        b = int(hi, 0) if hi else None
    except ValueError:
        raise UsageError("invalid range '%s' (A:B, decimal or 0x hexadecimal)" % text) from None
    if a < 0 or (b is not None and b < a):
        raise UsageError("invalid range '%s' (A <= B)" % text)
    return a, b


def arguments(argv):
    p = argparse.ArgumentParser(
        prog="simtrace-plot", description="Draw one stream of a simtrace container as PNG or SVG: the address "
        "heat map (pages by cycles), the working set over time, and the predictors' hit rates and bits per "
        "entry per frame.", epilog="Exit status: 0 success, 1 bad data or I/O error, 2 bad usage.")
    p.add_argument("file", help="the container; - or a pipe: standard input, copied to a temporary file")
    p.add_argument("-s", "--stream", help="the stream (default: the first memory stream)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--entries", metavar="A:B", help="entries A..B-1 only")
    g.add_argument("--cycles", metavar="C1:C2", help="entries of cycles C1..C2-1 only")
    p.add_argument("-o", "--output", help="output file, .png or .svg (default: FILE.png)")
    p.add_argument("--plot", default="all", help="heatmap, workingset, predictors, or all (default), "
                   "or several with commas")
    p.add_argument("--bins", type=int, default=600, help="cycle bins of the heat map (default 600)")
    p.add_argument("--rows", type=int, default=256, help="page rows of the heat map at most (default 256)")
    p.add_argument("--page-bits", type=int, default=12, help="page size as a power of two (default 12: 4 KiB)")
    p.add_argument("--max-pages", type=int, default=1 << 20,
                   help="distinct pages ranked at most; beyond, the rows slice the address range (default 1M)")
    p.add_argument("--window", type=int, default=0,
                   help="entries per working-set window (default: the range in 200 windows)")
    p.add_argument("--title", help="the figure's title (default: file and stream)")
    p.add_argument("--dpi", type=int, default=110, help="resolution of a PNG, dots per inch (default 110)")
    a = p.parse_args(argv)
    plots = PLOTS if a.plot == "all" else tuple(x for x in a.plot.split(","))
    bad = [x for x in plots if x not in PLOTS]
    if bad or not plots:
        raise UsageError("unknown plot '%s' (heatmap, workingset, predictors, all)" % ",".join(bad))
    a.plots = plots
    if a.bins < 1 or a.rows < 1 or a.window < 0 or not 0 <= a.page_bits < 64 or a.max_pages < 1:
        raise UsageError("--bins, --rows, --max-pages must be positive, --page-bits 0..63")
    a.output = a.output or ("stdin" if a.file == "-" else os.path.basename(a.file)) + ".png"
    a.path = a.file  # what is read: the file, or a copy of a pipe (spool)
    a.note = None  # said under the title: the trace was not read whole
    ext = os.path.splitext(a.output)[1].lower()
    if ext not in (".png", ".svg"):
        raise UsageError("the output must end in .png or .svg (got '%s')" % a.output)
    return a


def entry_range(s, a):
    if a.entries:
        lo, hi = parse_range(a.entries)
        hi = len(s) if hi is None else min(hi, len(s))
        return min(lo, len(s)), max(min(lo, len(s)), hi)
    if a.cycles:
        c1, c2 = parse_range(a.cycles)
        return s.cycle_range(c1, c2)
    return 0, len(s)


def first_pass(s, lo, hi, page_bits, max_pages):
    """The range's cycle span and its distinct pages (sorted), or None
    for the pages when there are more than max_pages (then their span)."""
    pages = np.empty(0, dtype=np.uint64)
    pmin, pmax = None, None
    cmin, cmax = None, None
    for _, e in s.frames(lo, hi):
        if len(e) == 0:
            continue
        pg = e["address"] >> np.uint64(page_bits)
        cmin = int(e["cycle"].min()) if cmin is None else min(cmin, int(e["cycle"].min()))
        cmax = int(e["cycle"].max()) if cmax is None else max(cmax, int(e["cycle"].max()))
        pmin = int(pg.min()) if pmin is None else min(pmin, int(pg.min()))
        pmax = int(pg.max()) if pmax is None else max(pmax, int(pg.max()))
        if pages is not None:
            pages = np.union1d(pages, np.unique(pg))
            if len(pages) > max_pages:
                pages = None  # too many to rank: memory stays bounded
    return (cmin, cmax), pages, (pmin, pmax)


def heatmap(s, lo, hi, a, span, pages, pspan):
    """counts[row, bin] and the page each row starts at."""
    cmin, cmax = span
    width = max(1, cmax - cmin + 1)
    if pages is not None:
        n = len(pages)
        rows = min(a.rows, n)
        row_of_rank = (np.arange(n) * rows) // n
        row_start = np.array([pages[np.searchsorted(row_of_rank, r)] for r in range(rows)], dtype=np.uint64)
    else:
        rows = a.rows
        pmin, pmax = pspan
        row_start = np.array([pmin + (pmax - pmin + 1) * r // rows for r in range(rows)], dtype=np.uint64)
    counts = np.zeros(rows * a.bins, dtype=np.int64)
    for _, e in s.frames(lo, hi):
        if len(e) == 0:
            continue
        pg = e["address"] >> np.uint64(a.page_bits)
        if pages is not None:
            row = row_of_rank[np.searchsorted(pages, pg)]
        else:
            row = np.searchsorted(row_start, pg, side="right") - 1
        col = ((e["cycle"] - np.uint64(cmin)).astype(np.float64) * a.bins / width).astype(np.int64)
        np.clip(col, 0, a.bins - 1, out=col)
        counts += np.bincount(row.astype(np.int64) * a.bins + col, minlength=rows * a.bins)
    return counts.reshape(rows, a.bins), row_start


def working_set(s, lo, hi, window, page_bits):
    """Per window of `window` entries: its first cycle, distinct pages and
    distinct cache lines.  Only one window's addresses are held."""
    xs, npages, nlines = [], [], []
    pend, pend_cycle = [], None
    done = 0  # entries of the current window so far

    def close():
        addr = np.concatenate(pend)
        xs.append(pend_cycle)
        npages.append(len(np.unique(addr >> np.uint64(page_bits))))
        nlines.append(len(np.unique(addr >> np.uint64(6))))

    for _, e in s.frames(lo, hi):
        i = 0
        while i < len(e):
            k = min(len(e) - i, window - done)
            if done == 0:
                pend_cycle = int(e["cycle"][i])
            pend.append(e["address"][i:i + k].copy())
            done += k
            i += k
            if done == window:
                close()
                pend, done = [], 0
    if done:
        close()
    return np.array(xs, dtype=np.float64), np.array(npages), np.array(nlines)


def step_to(ax, x, y, end, **kw):
    """ax.step(x, y, where="post") with the last value drawn on to end:
    matplotlib ends a post step at the last point, so the last frame (or
    window) would have no width, and a one-frame stream no line at all."""
    if len(x):
        ax.step(list(x) + [end], list(y) + [y[-1]], where="post", **kw)


def draw(a, s, lo, hi):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    heights = {"heatmap": 2.2, "workingset": 1.0, "predictors": 1.2}
    fig, axes = plt.subplots(len(a.plots), 1, figsize=(11, 2.6 * sum(heights[p] for p in a.plots)),
                             gridspec_kw={"height_ratios": [heights[p] for p in a.plots]}, squeeze=False)
    axes = axes[:, 0]
    span, pages, pspan = first_pass(s, lo, hi, a.page_bits, a.max_pages) if hi > lo else ((0, 0), None, (0, 0))
    cmin, cmax = span
    x_end = max(cmax, cmin + 1)  # the right end of every panel
    for ax, what in zip(axes, a.plots):
        ax.set_xlim(cmin, x_end)
        if what == "heatmap":
            ax.set_title("accesses per page (%s B) and cycle" % (1 << a.page_bits), fontsize=10, loc="left")
            if hi > lo:
                counts, row_start = heatmap(s, lo, hi, a, span, pages, pspan)
                masked = np.ma.masked_equal(counts, 0)
                im = ax.imshow(masked, aspect="auto", origin="lower", interpolation="nearest", cmap="viridis",
                               norm=LogNorm(vmin=1, vmax=max(1, counts.max())),
                               extent=(cmin, x_end, 0, len(row_start)))
                # inside the axes' row, so that every plot keeps the same width
                fig.colorbar(im, cax=ax.inset_axes([1.01, 0.0, 0.012, 1.0]), label="accesses")
                ticks = np.linspace(0, len(row_start) - 1, min(8, len(row_start))).astype(int)
                ax.set_yticks(ticks + 0.5)
                ax.set_yticklabels(["0x%x" % (int(row_start[t]) << a.page_bits) for t in ticks], fontsize=7)
            ax.set_ylabel("pages" + (" (ranked)" if pages is not None else ""))
        elif what == "workingset":
            window = a.window or max(1, (hi - lo) // 200)
            ax.set_title("working set per window of %d entries" % window, fontsize=10, loc="left")
            if hi > lo:
                x, npg, nln = working_set(s, lo, hi, window, a.page_bits)
                step_to(ax, x, npg, x_end, label="pages", color="tab:purple")
                step_to(ax, x, nln, x_end, label="cache lines (64 B)", color="tab:olive")
                ax.set_yscale("log")
                ax.legend(fontsize=7, loc="upper right")
            ax.set_ylabel("distinct")
        else:
            _, fr = s.stats()
            infos = {fi.first_entry: fi for fi in s.frame_infos()}
            pick = (fr["first_entry"] < hi) & (fr["first_entry"] + fr["entries"] > lo)
            ax.set_title("per frame: predictors' hit rate by field (left), stored bits per entry (right)",
                         fontsize=10, loc="left")
            x = [infos[int(e)].first_cycle for e in fr["first_entry"][pick]]
            if pick.any() and "hit_rate" in fr:
                for field, rate in fr["hit_rate"].items():
                    step_to(ax, x, rate[pick], x_end, label=field, color=FIELD_COLOURS.get(field))
                ax.legend(fontsize=7, loc="lower left", ncol=5)
            ax.set_ylim(0, 1.02)
            ax.set_ylabel("hit rate")
            ax2 = ax.twinx()
            step_to(ax2, x, 8.0 * fr["stored_bytes"][pick] / np.maximum(1, fr["entries"][pick]), x_end,
                    color="black", linestyle="--", label="bits/entry")
            ax2.set_ylabel("bits/entry")
            ax2.set_ylim(bottom=0)
    axes[-1].set_xlabel("cycle")
    title = a.title or "%s: stream %s, entries %d..%d" % (
        "(standard input)" if a.file == "-" else os.path.basename(a.file), s.name, lo, hi - 1)
    fig.suptitle(title + ("\n(%s)" % a.note if a.note else ""), fontsize=11)
    fig.tight_layout()
    fig.savefig(a.output, dpi=a.dpi)
    plt.close(fig)


def spool(a):
    """If a.file is - or not a regular file (a pipe), copy it to a
    temporary file, a.path, and return that path (for the caller to
    remove); else None."""
    if a.file != "-" and stat.S_ISREG(os.stat(a.file).st_mode):
        return None
    fd, path = tempfile.mkstemp(prefix="simtrace-plot-", suffix=".sim")
    try:
        with os.fdopen(fd, "wb") as out:
            if a.file == "-":
                shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
            else:
                with open(a.file, "rb") as src:
                    shutil.copyfileobj(src, out, 1 << 20)
    except BaseException:
        os.unlink(path)
        raise
    a.path = path
    return path


def main(argv=None):
    try:
        a = arguments(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        print("simtrace-plot: %s" % e, file=sys.stderr)
        return 2
    tmp = None
    try:
        tmp = spool(a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", simtrace.SimtraceWarning)  # said below, as the program says things
            t = simtrace.open(a.path)
        with t:
            if not t.complete:
                print("simtrace-plot: %s: warning: %s; the plot shows the entries of those frames" % (
                    a.file, t.incomplete_reason), file=sys.stderr)
                a.note = "incomplete: no valid directory, read through its frame headers"
            s = t.stream(a.stream)
            if not s.is_memory:
                print("simtrace-plot: %s: stream '%s' is of type %s, not a memory stream" % (a.file, s.name,
                      s.type_name), file=sys.stderr)
                return 2
            lo, hi = entry_range(s, a)
            draw(a, s, lo, hi)
    except UsageError as e:
        print("simtrace-plot: %s" % e, file=sys.stderr)
        return 2
    except simtrace.SimtraceError as e:
        # (a copy of a pipe is named as the input)
        print("simtrace-plot: %s" % (str(e).replace(tmp, a.file) if tmp else e), file=sys.stderr)
        return 2 if e.name in ("E_USAGE", "E_NOT_FOUND") else 1
    except OSError as e:
        print("simtrace-plot: %s" % e, file=sys.stderr)
        return 1
    finally:
        if tmp:
            os.unlink(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())

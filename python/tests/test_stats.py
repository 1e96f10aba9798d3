"""Stream.stats (the library's simtrace_stats_*) against simtrace-cat
--stats=json, whose figures are the same calls'; and simtrace-plot's
predictors panel, which uses it and runs no other program."""
import json
import subprocess

import numpy as np
import pytest

import simtrace
from conftest import run


def cat_json(path):
    return json.loads(run("simtrace-cat", "--stats=json", path))


def sizes_as_json(sizes):
    return {(str(z) if z < 65 else ">64"): n for z, n in sizes.items()}


@pytest.mark.parametrize("which", ["bios", "wide", "one", "no_frames", "user", "mix8", "cmx_off"])
def test_stats_equal_simtrace_cat(traces, which):
    want = cat_json(traces[which])
    with simtrace.open(traces[which]) as t:
        assert [s.name for s in t.streams] == [j["name"] for j in want["streams"]]
        for s, j in zip(t.streams, want["streams"]):
            summary, frames = s.stats()
            for k in ("entries", "frames", "raw_bytes", "stored_bytes", "encoder"):
                assert summary[k] == j[k], k
            assert list(frames["first_entry"]) == [f["first_entry"] for f in j["frame_stats"]]
            assert list(frames["entries"]) == [f["entries"] for f in j["frame_stats"]]
            assert list(frames["stored_bytes"]) == [f["stored_bytes"] for f in j["frame_stats"]]
            assert int(frames["stored_bytes"].sum()) == summary["stored_bytes"]
            if "fields" not in j:
                assert "fields" not in summary and "hit_rate" not in frames
                continue
            for k in ("distinct_lines", "distinct_pages", "distinct_exact", "kind", "transform_on_frames",
                      "transform_off_frames"):
                assert summary[k] == j[k], k
            assert list(frames["transform"]) == [{True: 1, False: 0}.get(f.get("transform"), -1)
                                                 for f in j["frame_stats"]]
            assert sizes_as_json(summary.get("sizes", {})) == j.get("sizes", {})
            assert list(summary["fields"]) == list(j["fields"])
            for name, f in j["fields"].items():
                mine = summary["fields"][name]
                assert mine["ids"] == f["ids"]
                assert mine["coded"] - mine["hits"] == f["misses"]
                assert mine["coded"] == summary["entries"]
                assert abs(mine["hits"] / max(1, mine["coded"]) - f["hit_rate"]) < 1e-6
                assert abs(mine["expected"] / max(1, mine["coded"]) - f["expected_rate"]) < 1e-6
                for fr, rate in zip(j["frame_stats"], frames["hit_rate"][name]):
                    assert abs(rate - fr["hit_rate"][name]) < 1e-6
                assert int(frames["coded"][name].sum()) == mine["coded"]
            bits = dict(j["bits"])
            assert bits.pop("stored") == 8 * bits["unit"] * summary["stored_bytes"]
            assert summary["bits"] == bits


def test_stats_of_a_damaged_frame_raise(traces, tmp_path):
    bad = tmp_path / "bad.sim"
    data = bytearray(traces["bios"].read_bytes())
    data[len(data) // 2] ^= 0xff  # inside a frame's payload
    bad.write_bytes(bytes(data))
    with simtrace.open(bad) as t:
        with pytest.raises(simtrace.SimtraceError):
            for s in t.streams:
                s.stats()


def test_plot_runs_no_program(traces, tmp_path, monkeypatch):
    """The predictors panel, in this process, with subprocess refused."""
    import os
    from simtrace import plot

    def refuse(*a, **k):
        raise AssertionError("simtrace-plot ran a program: %r" % (a,))

    for name in ("run", "Popen", "call", "check_call", "check_output"):
        monkeypatch.setattr(subprocess, name, refuse)
    monkeypatch.setattr(os, "system", refuse)
    out = tmp_path / "p.png"
    assert plot.main(["--plot=predictors", "-s", "bios.read", "-o", str(out), str(traces["bios"])]) == 0
    assert out.stat().st_size > 10000
    assert "subprocess" not in open(plot.__file__).read()
    # the panel's data: one point per frame, as Stream.stats gives them
    with simtrace.open(traces["bios"]) as t:
        _, frames = t["bios.read"].stats()
        assert len(frames["entries"]) == t["bios.read"].frame_count and np.all(frames["hit_rate"]["ip"] <= 1)

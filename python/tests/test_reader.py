"""simtrace (the Python reader) against simtrace-cat: the same bytes for
slices, cycle ranges and frames; the fields of the structured arrays;
wide values; edge cases; the library's errors."""
import errno
import json
import os
import random
import re
import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

import simtrace
from conftest import ROOT, run

CYCLE_MASK = (1 << 48) - 1


def fields_of_raw_d64(raw):
    """The DTYPE fields of raw d64 entries, computed apart from the
    package's unpacking: entry by entry, in plain Python integers."""
    out = []
    w = np.frombuffer(raw, dtype="<u8").reshape(-1, 4)
    for meta, ip, addr, data in w.tolist():
        m16 = meta >> 48
        if m16 & 1:
            size, value = 8, data
        else:
            size, value = data >> 32, data & 0xFFFFFFFF
        out.append((meta & CYCLE_MASK, m16, ip, addr, size, value))
    return out


def test_streams_match_list(traces):
    listing = json.loads(run("simtrace-cat", "--list", "--json", traces["bios"]))
    with simtrace.open(traces["bios"]) as t:
        assert [s.name for s in t.streams] == [s["name"] for s in listing["streams"]]
        for s, l in zip(t.streams, listing["streams"]):
            assert (s.type_name, s.entries, s.frame_count, s.raw_bytes, s.stored_bytes) == (
                l["type"], l["entries"], l["frames"], l["raw_bytes"], l["stored_bytes"])
            assert (s.first_cycle, s.last_cycle) == (l["first_cycle"], l["last_cycle"])
        assert t.stream().name == "bios.read"  # the default: the first memory stream
        assert t["bios.m64"].type_name == "m64" and t[1].name == "bios.m64" and len(t) == 2


def test_slices_are_simtrace_cat_bytes(traces):
    rnd = random.Random(14)
    with simtrace.open(traces["bios"]) as t:
        s = t["bios.read"]
        n = len(s)
        cuts = [(0, 1), (0, 40000), (39999, 40001), (n - 1, n), (0, n), (123, 123)]
        cuts += [tuple(sorted(rnd.randrange(n + 1) for _ in range(2))) for _ in range(8)]
        for a, b in cuts:
            want = run("simtrace-cat", "--entries=%d:%d" % (a, b), "-s", "bios.read", traces["bios"])
            assert s.raw(a, b).tobytes() == want, (a, b)
            assert traces["bios_raw"][32 * a:32 * b] == want
        a, b = 77777, 80123
        got = s[a:b]
        assert got.dtype == simtrace.DTYPE and len(got) == b - a
        assert [tuple(int(x) for x in e) for e in got] == fields_of_raw_d64(traces["bios_raw"][32 * a:32 * b])
        # a single entry, negative indices, slices clipped at the end
        assert tuple(s[a]) == tuple(got[0]) and tuple(s[-1]) == tuple(s[n - 1:n][0])
        assert len(s[n - 5:n + 100]) == 5 and len(s[n:]) == 0 and len(s[10:5]) == 0
        with pytest.raises(IndexError):
            s[n]


def test_threads_read_the_same_slices(traces):
    # slices over several frames of 40000 entries decode on two threads
    raw = traces["bios_raw"]
    with simtrace.open(traces["bios"], threads=2) as t:
        s = t["bios.read"]
        n = len(s)
        for a, b in [(0, n), (39999, 200001), (5, 80000), (120000, 120001)]:
            assert s.raw(a, b).tobytes() == raw[32 * a:32 * b], (a, b)
        got = b"".join(r.tobytes() for _, r in s.frames(30000, 130000, raw=True))
        assert got == raw[32 * 30000:32 * 130000]


def test_read_into_a_callers_array(traces):
    """out= fills the caller's array from its start, the result a view of
    it, with the entries a new array would hold; a wrong out is refused
    before anything is read."""
    with simtrace.open(traces["bios"]) as t:
        s = t["bios.read"]
        buf = np.full(50000, 0xAB, dtype=np.uint8).view(np.uint8)
        dst = np.zeros(45000, dtype=simtrace.DTYPE)
        for a, b in [(0, 40000), (39999, 40001), (len(s) - 7, len(s) + 50), (5, 5)]:
            got = s.read(a, b, out=dst)
            want = s.read(a, b)
            assert (len(got) == 0 or np.shares_memory(got, dst)) and got.tobytes() == want.tobytes(), (a, b)
            assert len(got) == len(want) and got.__array_interface__["data"][0] == dst.ctypes.data
            r = s.raw(a, min(b, a + 1500), out=buf)
            assert (len(r) == 0 or np.shares_memory(r, buf)) and r.tobytes() == s.raw(a, min(b, a + 1500)).tobytes()
        with pytest.raises(ValueError, match="holds 10 elements; the range needs 11"):
            s.read(0, 11, out=np.zeros(10, dtype=simtrace.DTYPE))
        with pytest.raises(TypeError, match="dtype"):
            s.read(0, 1, out=np.zeros(10, dtype=np.uint64))
        with pytest.raises(ValueError, match="C-contiguous"):
            s.read(0, 2, out=np.zeros(20, dtype=simtrace.DTYPE)[::2])
        ro = np.zeros(10, dtype=simtrace.DTYPE)
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="writable"):
            s.read(0, 2, out=ro)
        with pytest.raises(TypeError, match="numpy array"):
            s.raw(0, 1, out=bytearray(64))
        with pytest.raises(ValueError, match="the range needs 64"):
            s.raw(0, 2, out=np.zeros(63, dtype=np.uint8))
    with simtrace.open(traces["user"]) as t:
        s = t.stream()
        rows = np.zeros((200, 7), dtype=np.uint8)
        got = s.read(out=rows)
        assert got.shape == (150, 7) and np.shares_memory(got, rows) and got.tobytes() == s[:].tobytes()


def test_m64_fields(traces):
    with simtrace.open(traces["bios"]) as t:
        s, d = t["bios.m64"], t["bios.read"]
        assert s.raw(5, 900).tobytes() == run("simtrace-cat", "--entries=5:900", "-s", "bios.m64", traces["bios"])
        a, b = s[5:900], d[5:900]
        for f in ("cycle", "meta", "ip", "address"):
            assert (a[f] == b[f]).all()
        assert (a["size"] == 0).all() and (a["value"] == 0).all()


def test_cycle_ranges_are_simtrace_cat_bytes(traces):
    with simtrace.open(traces["bios"]) as t:
        s = t.stream()
        last = s.last_cycle
        for c1, c2 in [(0, 1000), (1003, 1004), (5_000_000, 5_400_000), (last, last + 1), (last + 1, last + 9),
                       (0, last + 1)]:
            want = run("simtrace-cat", "--cycles=%d:%d" % (c1, c2), traces["bios"])
            a, b = s.cycle_range(c1, c2)
            assert s.raw(a, b).tobytes() == want, (c1, c2)
            got = s.cycles(c1, c2)
            assert len(got) * 32 == len(want)
            assert ((got["cycle"] >= c1) & (got["cycle"] < c2)).all()


def test_frames_tile_the_stream_in_constant_memory(traces):
    with simtrace.open(traces["bios"]) as t:
        s = t.stream()
        listed = [l for l in run("simtrace-cat", "--list", "--frames", traces["bios"]).decode().splitlines()[1:]
                  if l.split()[0] == s.name]
        assert s.frame_count == len(listed) == 8
        parts, total = [], 0
        tracemalloc.start()
        for fi, raw in s.frames(raw=True):
            assert fi.first_entry == total and fi.entries == len(raw) // 32 <= 40000
            fields = listed[fi.index].split()
            assert (int(fields[2]), int(fields[3]), int(fields[-1])) == (fi.first_entry, fi.entries, fi.stored_bytes)
            total += fi.entries
            parts.append(raw.tobytes()[:64])  # keep a little of each: the check below is of the peak
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert total == len(s)
        # one frame (1.28 MB) at a time, never the whole stream (9.6 MB)
        assert peak < 3 * 40000 * 32, peak
        whole = b"".join(r.tobytes() for _, r in s.frames(raw=True))
        assert whole == run("simtrace-cat", traces["bios"])
        # entries of the frames as structured arrays, and iteration by entry
        n = 0
        for fi, a in s.frames():
            assert len(a) == fi.entries and a.dtype == simtrace.DTYPE
            n += len(a)
        assert n == len(s)
        it = iter(s)
        assert tuple(next(it)) == tuple(s[0])


def test_wide_values(traces):
    text = run("simtrace-cat", "-F", "text", "-s", "cpu1.write", traces["wide"]).decode().splitlines()
    want = [l.split() for l in text if not l.startswith("#")]
    with simtrace.open(traces["wide"]) as t:
        s = t["cpu1.write"]
        a = s[:]
        wide = s.is_wide(a)
        assert wide.any()
        for i, row in enumerate(want):
            v = s.value(i)
            assert int(row[4]) == int(a["size"][i]) == len(v)
            assert int(row[5], 16) == int.from_bytes(v, "little")
            if not wide[i]:
                assert int.from_bytes(v, "little") == int(a["value"][i])
        with pytest.raises(simtrace.SimtraceError) as e:
            t["cpu0.events"].value(0)
        assert e.value.name == "E_USAGE"


def test_empty_stream_and_one_entry(traces):
    with simtrace.open(traces["one"]) as t:
        s = t.stream()
        a = s[:]
        assert len(a) == 1 and s.raw().tobytes() == run("simtrace-cat", traces["one"])
        assert int(a["cycle"][0]) == 25 and [fi.entries for fi, _ in s.frames()] == [1]
        assert len(s.cycles(0, 25)) == 0 and len(s.cycles(25, 26)) == 1
    with simtrace.open(traces["no_frames"]) as t:
        e = t["empty"]
        assert len(e) == 0 and len(e[:]) == 0 and e[:].dtype == simtrace.DTYPE
        assert list(e.frames()) == [] and len(e.cycles(0, 100)) == 0 and e.raw().nbytes == 0
    with simtrace.open(traces["empty"]) as t:
        assert t.streams == []
        with pytest.raises(simtrace.SimtraceError) as ex:
            t.stream()
        assert ex.value.name == "E_NOT_FOUND"


def test_user_type_gives_raw_rows(traces):
    with simtrace.open(traces["user"]) as t:
        s = t.stream()
        a = s[:]
        assert a.shape == (150, 7) and a.tobytes() == run("simtrace-cat", traces["user"])


def test_bad_files_raise_the_librarys_errors(traces):
    bad = traces["bad"]
    with pytest.raises(simtrace.SimtraceError) as e:
        simtrace.open(bad / "header-magic.sim")
    assert e.value.name == "E_BAD_MAGIC" and e.value.is_data
    # opens (the directory is fine); reading the damaged frame fails, and
    # the exception carries the library's message: where and what
    t = simtrace.open(bad / "payload-crc.sim")
    with pytest.raises(simtrace.SimtraceError) as e:
        t.stream()[:]
    assert e.value.is_data and e.value.name == "E_PAYLOAD_CRC"
    assert re.search(r"offset|frame", e.value.message), e.value.message
    t.close()
    with pytest.raises(simtrace.SimtraceError) as e:
        t.stream()
    assert e.value.name == "E_STATE"
    # every bad file fails to open or to read, with a data error, or is read
    # through its frame headers, with a warning that says so
    failures = incomplete = 0
    for f in sorted(bad.glob("*.sim")):
        try:
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                with simtrace.open(f) as t:
                    for s in t.streams:
                        s.raw()
            assert t.complete == (said == []), f
            incomplete += not t.complete
        except simtrace.SimtraceError as ex:
            assert ex.message, f
            failures += 1
    assert failures >= len(list(bad.glob("*.sim"))) // 2 and incomplete >= 3


def test_open_failures_are_oserrors(traces, tmp_path):
    """A file that cannot be opened gives the system's reason: an OSError
    subclass with errno and the file name, as Python's own open()."""
    missing = traces["dir"] / "missing.sim"
    with pytest.raises(FileNotFoundError) as e:
        simtrace.open(missing)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
    assert "No such file" in str(e.value) and "missing.sim" in str(e.value)
    with pytest.raises(IsADirectoryError) as e:
        simtrace.open(tmp_path)
    assert e.value.errno == errno.EISDIR
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.sim"
        locked.write_bytes(traces["one"].read_bytes())
        locked.chmod(0)
        with pytest.raises(PermissionError):
            simtrace.open(locked)


def test_range_errors(traces):
    with simtrace.open(traces["bios"]) as t:
        s = t.stream()
        with pytest.raises(simtrace.SimtraceError) as e:
            s.raw(len(s) + 1, len(s) + 2)
        assert e.value.name == "E_RANGE" and "bios.read" in str(e.value)
        with pytest.raises(simtrace.SimtraceError):
            s.frame_info(8)


def test_arguments_are_checked_not_wrapped_round(traces):
    """Indexes, cycles and counts are integers from 0 to 2^64 - 1: ctypes
    would wrap a negative or larger one round silently (a cycle of -5 read
    as 2^64 - 5 gave an empty range with no error)."""
    with simtrace.open(traces["bios"]) as t:
        s = t.stream()
        assert len(s.cycles(0, 10 ** 6)) > 0
        for bad in (lambda: s.cycles(-5, 30), lambda: s.cycles(0, -1), lambda: s.find_cycle(-1),
                    lambda: s.value(-1), lambda: s.frame_info(-1), lambda: s.read(2 ** 64 + 3, 2 ** 64 + 4)):
            with pytest.raises(ValueError):
                bad()
        for neg in (lambda: s.read(5, -1), lambda: s.raw(-1, 5), lambda: s.read(-1, 5)):
            with pytest.raises(simtrace.SimtraceError) as e:
                neg()
            assert e.value.name == "E_RANGE"
        with pytest.raises(TypeError):
            s[1.5]
        with pytest.raises(TypeError):
            s.read(0.5, 3)
        import numpy as np
        assert s[np.int64(3)] == s[3]  # numpy's integers are integers
        assert len(s.raw(0, 2 ** 64 + 5)) == len(s) * s.entry_size  # an end past the end is clipped
        assert t.stream(0) is t[0]
    for bad in ({"threads": 2 ** 40}, {"memlimit": -1}):
        with pytest.raises(ValueError):
            simtrace.open(traces["bios"], **bad)
    # a path as bytes or a path object, as the os module takes them
    with simtrace.open(os.fsencode(str(traces["bios"]))) as t:
        assert t.path == str(traces["bios"])
    with pytest.raises(TypeError):
        simtrace.open(None)


def test_frames_of_a_range(traces):
    with simtrace.open(traces["bios"]) as t:
        s = t.stream()
        for a, b in [(0, 1), (39999, 40001), (50000, 170000), (299990, 400000), (123, 123)]:
            got = b"".join(r.tobytes() for _, r in s.frames(a, b, raw=True))
            assert got == run("simtrace-cat", "--entries=%d:%d" % (a, b), traces["bios"]), (a, b)


def test_error_names_come_from_the_library():
    """simtrace.ERRORS is the library's list (simtrace_error_name), not one
    kept in Python: every value of the header, by its name."""
    header = (ROOT / "include/simtrace.h").read_text()
    want = {m.group(1): int(m.group(2)) for m in re.finditer(r"SIMTRACE_((?:E_\w+)|OK) = (\d+)", header)}
    assert len(want) >= 32 and simtrace.ERRORS == want
    e = simtrace.SimtraceError(want["E_PAYLOAD_CRC"], "x")
    assert e.name == "E_PAYLOAD_CRC" and e.is_data
    assert simtrace.SimtraceError(999, "x").name == "E_999"


def test_a_cut_off_file_warns_and_says_it_is_incomplete(traces, tmp_path):
    """A file cut off (no directory) is read through its frame headers:
    the package warns (SimtraceWarning) and sets Trace.complete False; a
    whole file gives neither."""
    cut = tmp_path / "cut.sim"
    whole = traces["bios"].read_bytes()
    cut.write_bytes(whole[:len(whole) // 2])
    with pytest.warns(simtrace.SimtraceWarning, match=r"cut\.sim: no valid directory and footer.*frame headers"):
        t = simtrace.open(cut)
    with t:
        assert t.complete is False and "frame headers" in t.incomplete_reason
        s = t.stream()
        assert 0 < len(s) < 300000 and len(s) % 40000 == 0
        assert s.raw().tobytes() == traces["bios_raw"][:32 * len(s)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with simtrace.open(traces["bios"]) as t:
            assert t.complete is True and t.incomplete_reason == ""


def test_stepped_slices_read_only_their_range(traces):
    """s[a:b:step] gives what numpy's slicing of the whole stream gives, for
    any step, and reads only the range, one frame at a time: s[0:10:2] of
    a 300,000-entry stream does not take the stream's 12 MB."""
    with simtrace.open(traces["bios"]) as t:
        s = t.stream()
        n = len(s)
        whole = s[:]
        for key in [slice(0, 10, 2), slice(None, None, 1000), slice(None, None, -1), slice(100, 10, -7),
                    slice(-1, -5, -1), slice(39990, 80020, 3), slice(5, 5, 2), slice(10, 0, 3),
                    slice(n - 3, None, 2), slice(None, None, 40001), slice(n + 5, 0, -99999)]:
            got = s[key]
            assert got.dtype == simtrace.DTYPE and got.tobytes() == whole[key].tobytes(), key
        raw_rows = t["bios.m64"]
        assert raw_rows[::-3].tobytes() == raw_rows[:][::-3].tobytes()
        del whole
        tracemalloc.start()
        a = s[0:10:2]
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(a) == 5 and peak < 40000 * 40, peak  # less than one frame's array
        tracemalloc.start()
        a = s[::997]
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(a) == len(range(0, n, 997)) and peak < 3 * 40000 * 40, peak  # one frame at a time
    with simtrace.open(traces["user"]) as t:
        u = t.stream()
        assert u[::7].tobytes() == u[:][::7].tobytes() and u[::7].shape == (len(range(0, 150, 7)), 7)


def test_pipes_are_refused_and_dash_is_standard_input(traces, tmp_path):
    """The package reads with random access: a pipe (by path, /dev/stdin,
    or "-") is refused with E_SEEK and a message saying what to do, before
    anything is read from it; "-" redirected from a file is read."""
    code = ("import sys, simtrace\n"
            "try:\n"
            "    t = simtrace.open(sys.argv[1])\n"
            "    print('entries', len(t.stream()))\n"
            "except simtrace.SimtraceError as e:\n"
            "    print(e.name, e)\n"
            "print('left', len(sys.stdin.buffer.read()))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    data = traces["one"].read_bytes()

    def py(arg, stdin):
        piped = stdin is None
        p = subprocess.run([sys.executable, "-c", code, arg], stdin=None if piped else stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, input=data if piped else None,
                           timeout=60)
        assert p.returncode == 0, p.stderr.decode()
        return p.stdout.decode()

    for arg in ("-", "/dev/stdin"):
        out = py(arg, None)
        assert out.startswith("E_SEEK ") and "not a regular file (a pipe" in out, out
        assert "copy it to a file" in out and "left %d" % len(data) in out, out  # nothing taken from the pipe
    with open(traces["one"], "rb") as f:
        assert py("-", f).startswith("entries 1\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = py(str(fifo), None)  # no writer: refused at once, not waited for
    assert out.startswith("E_SEEK %s: not a regular file" % fifo), out

"""simtrace: read simtrace containers (compressed memory traces) into numpy.

    import simtrace
    with simtrace.open("bios.sim") as t:
        print(t.streams)               # every stream, with its type and size
        s = t.stream()                 # the default stream (first memory stream)
        a = s[1000:2000]               # entries 1000..1999, a numpy structured array
        b = s.cycles(5000, 6000)       # the entries of cycles 5000..5999
        for frame, entries in s.frames():   # one frame at a time: constant memory
            ...
        summary, frames = s.stats()    # simtrace-cat --stats's figures, per frame in arrays

Memory streams (d64, d32, m64, m32) give arrays of DTYPE: cycle, meta
(bit 0 fullSize, bits 1..15 the producer's tag), ip, address, size (bytes
of the access; 0 for m64/m32, which record none) and value (the low bytes
of a wide value; Stream.value(i) returns the whole of it).  Other streams
give their raw entries, an (n, entry_size) uint8 array.  Stream.raw(a, b)
gives any stream's entries in their raw little-endian layout, byte for
byte what `simtrace-cat --entries=a:b` writes.

Everything goes through the public C API of libsvpc (include/simtrace.h);
errors raise SimtraceError, carrying the library's error and message; a
file that cannot be opened raises OSError (FileNotFoundError,
PermissionError...), with errno and the file name.
The library is found through $SIMTRACE_LIBRARY, the source tree's build/,
the directory `make install` used, or the dynamic linker's search path.
"""
import ctypes
import operator
import os
import stat
import warnings

import numpy as np

from . import _lib

__all__ = ["open", "Trace", "Stream", "SimtraceError", "SimtraceWarning", "DTYPE", "FrameInfo", "version", "ERRORS"]

_L = _lib.load()
# the library's error values by name ("E_RANGE": 23), and names by value
ERRORS = _lib.error_codes(_L)
_ERROR_NAMES = {v: k for k, v in ERRORS.items()}

CYCLE_MASK = (1 << 48) - 1
UINT64_MAX = (1 << 64) - 1

# The library's simtrace_access (include/simtrace.h), which
# simtrace_access_unpack fills: the arrays are filled in place, one call
# per frame, with no pass of numpy's over them.
DTYPE = np.dtype({"names": ["cycle", "meta", "ip", "address", "size", "value"],
                  "formats": ["<u8", "<u2", "<u8", "<u8", "<u4", "<u8"],
                  "offsets": [0, 36, 8, 16, 32, 24], "itemsize": 40})

_MEMORY = (_lib.TYPE_D64, _lib.TYPE_D32, _lib.TYPE_M64, _lib.TYPE_M32)

def version():
    """The library's version string ("0.2.0")."""
    return _L.simtrace_version_string().decode()


class SimtraceError(Exception):
    """A call of libsvpc failed.  code: the simtrace_error value; name: its
    name ("E_PAYLOAD_CRC"); message: the library's words for it;
    is_data: the input's content is bad (not I/O, usage or resources)."""

    def __init__(self, code, message, where=None):
        self.code = code
        self.name = _ERROR_NAMES.get(code, "E_%d" % code)
        self.message = message
        self.is_data = bool(_L.simtrace_error_is_data(code))
        text = message if not where else "%s: %s" % (where, message)
        super().__init__("%s (%s)" % (text, self.name))


class SimtraceWarning(UserWarning):
    """The trace was read, but not whole: it has no valid directory and
    footer (cut off, or a writer that was never closed), so libsvpc read it
    through its frame headers and the streams end at the last complete
    frame.  Trace.complete is then False."""


class FrameInfo:
    """One data frame of a stream (simtrace_frame_info)."""

    __slots__ = ("index", "first_entry", "entries", "first_cycle", "last_cycle", "first_time", "last_time",
                 "offset", "stored_bytes", "encoder", "has_time")

    def __init__(self, k, fi):
        self.index = k
        for n in self.__slots__[1:]:
            setattr(self, n, getattr(fi, n))

    def __repr__(self):
        return "FrameInfo(%d: entries %d..%d, %d bytes)" % (self.index, self.first_entry,
                                                            self.first_entry + self.entries - 1, self.stored_bytes)


def _count(v, what):
    """v as an index, count or cycle the library takes (a u64): an integer
    (Python's or numpy's, not a float: TypeError, as list[1.5]) from 0 to
    2^64 - 1 (ValueError: ctypes would wrap it round silently)."""
    v = operator.index(v)
    if not 0 <= v <= UINT64_MAX:
        raise ValueError("%s %d is out of 0 .. 2^64 - 1" % (what, v))
    return v


def _unpack_at(kind, ptr, n, out, pos):
    """Fill out[pos:pos + n] (DTYPE) from the n raw entries of memory type
    kind at address ptr."""
    e = _L.simtrace_access_unpack(kind, ptr, n, out.ctypes.data + pos * DTYPE.itemsize)
    if e:
        raise SimtraceError(e, _L.simtrace_strerror(e).decode())


def unpack(kind, raw):
    """Raw entries of memory type kind (bytes or a uint8 array) as an array
    of DTYPE."""
    raw = np.ascontiguousarray(np.frombuffer(raw, dtype=np.uint8))
    n = len(raw) // _L.simtrace_type_size(kind)
    out = np.empty(n, dtype=DTYPE)
    if n:
        _unpack_at(kind, raw.ctypes.data, n, out, 0)
    return out


def _out_view(out, dtype, n):
    """out checked as a destination of n elements of dtype: a numpy array
    of that dtype, C-contiguous, writable and big enough.  Returns out."""
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a numpy array, not %s" % type(out).__name__)
    if out.dtype != dtype:
        raise TypeError("out has dtype %s; this stream reads into %s" % (out.dtype, np.dtype(dtype)))
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be C-contiguous and writable")
    if out.size < n:
        raise ValueError("out holds %d elements; the range needs %d" % (out.size, n))
    return out


class Stream:
    """One stream of an open trace.  len(s) is its entry count; s[a:b],
    s[a:b:step] and s[i] read entries (only those of the range); see the
    module's help."""

    def __init__(self, trace, info):
        self._t = trace
        self.index = info.index
        self.id = info.id
        self.name = info.name.decode("utf-8", "replace")
        self.type = info.type
        self.type_name = info.type_name.decode("utf-8", "replace")
        self.entry_size = info.entry_size
        self.entries = info.entries
        self.frame_count = info.frames
        self.stored_bytes = info.stored_bytes
        self.first_cycle = info.first_cycle
        self.last_cycle = info.last_cycle
        self.has_cycles = bool(info.has_cycles)
        self.cycles_ordered = bool(info.cycles_ordered)
        self.owner = None if info.owner == 0xFFFFFFFF else info.owner
        self.values_stream = None if info.values == 0xFFFFFFFF else info.values

    @property
    def is_memory(self):
        return self.type in _MEMORY

    @property
    def raw_bytes(self):
        return self.entries * self.entry_size

    def __len__(self):
        return self.entries

    def __repr__(self):
        return "<simtrace.Stream %r %s: %d entries, %d frames, %d bytes stored>" % (
            self.name, self.type_name, self.entries, self.frame_count, self.stored_bytes)

    def raw(self, a=0, b=None, out=None):
        """Entries [a, b) (b None: to the end; b is clipped to the end) in
        their raw layout, as a uint8 array.  out: a C-contiguous, writable
        uint8 array of at least that many bytes, filled from its start
        instead of a new array (the result is then a view of it), so
        that repeated reads reuse one buffer."""
        a, b = operator.index(a), UINT64_MAX if b is None else operator.index(b)
        if a < 0 or b < 0:
            raise SimtraceError(ERRORS["E_RANGE"], "negative entry index", self.name)
        a, b = _count(a, "entry"), min(b, UINT64_MAX)  # b past the end is clipped to it
        n = max(0, min(b, self.entries) - a)
        buf = np.empty(n * self.entry_size, dtype=np.uint8) if out is None else \
            _out_view(out, np.uint8, n * self.entry_size).reshape(-1)[:n * self.entry_size]
        cnt = ctypes.c_uint64()
        self._t._check(_L.simtrace_reader_read(self._t._h(), self.index, a, b, buf.ctypes.data, buf.nbytes,
                                               ctypes.byref(cnt)), self.name)
        if cnt.value != n:  # the library's count is the truth (clipping is its rule)
            raise SimtraceError(ERRORS["E_RANGE"], "expected %d entries, the library gave %d" % (n, cnt.value),
                                self.name)
        return buf

    def _entries(self, raw):
        if self.is_memory:
            return unpack(self.type, raw)
        return raw.reshape(-1, self.entry_size)

    def read(self, a=0, b=None, out=None):
        """Entries [a, b) as an array of DTYPE (memory streams) or an
        (n, entry_size) uint8 array (other types).  out: an array to fill
        instead of a new one, C-contiguous and writable, with room for at
        least the range (DTYPE for memory streams, uint8 for the others,
        of any shape); the result is a view of its start.  Reading into
        one array again and again skips the first touch of fresh memory,
        which costs as much as a fifth of a large read."""
        if not self.is_memory:
            if out is not None:
                out = _out_view(out, np.uint8, 0).reshape(-1)
            return self._entries(self.raw(a, b, out))
        a, b = operator.index(a), None if b is None else operator.index(b)
        if a < 0 or (b is not None and b < 0):
            raise SimtraceError(ERRORS["E_RANGE"], "negative entry index", self.name)
        a = _count(a, "entry")
        b = self.entries if b is None else min(b, self.entries)
        if a < 0 or a > self.entries:
            self.raw(a, a)  # the library says what is wrong
        n = max(0, b - a)
        out = np.empty(n, dtype=DTYPE) if out is None else _out_view(out, DTYPE, n).reshape(-1)[:n]
        if n == 0:
            return out
        # a cursor decodes each frame once and lends its part of the range
        # (simtrace_cursor_peek: no copy), which the library unpacks
        # straight into the array
        h = ctypes.c_void_p()
        rg = _lib.Range(_lib.RANGE_ENTRIES, 0, a, b)
        self._t._check(_L.simtrace_cursor_open(ctypes.byref(h), self._t._h(), self.name.encode(),
                                               ctypes.byref(rg)), self.name)
        try:
            ptr, cnt, first = ctypes.c_void_p(), ctypes.c_uint64(), ctypes.c_uint64()
            pos = 0
            while pos < n:
                self._t._check(_L.simtrace_cursor_peek(h, ctypes.byref(ptr), ctypes.byref(cnt),
                                                       ctypes.byref(first)), self.name)
                k = cnt.value
                if k == 0 or first.value != a + pos or pos + k > n:
                    raise SimtraceError(ERRORS["E_INTERNAL"], "the cursor gave entries %d..%d, not from %d" % (
                        first.value, first.value + k, a + pos), self.name)
                _unpack_at(self.type, ptr.value, k, out, pos)
                pos += k
        finally:
            _L.simtrace_cursor_free(h)
        return out

    def _stepped(self, picks):
        """The entries at the indices of range picks (any step), reading
        only their span, one frame at a time: the memory is the result's
        and one frame's, however wide the span."""
        lo, hi = min(picks[0], picks[-1]), max(picks[0], picks[-1]) + 1
        step = abs(picks.step)
        out, pos = None, 0
        for fi, e in self.frames(lo, hi):
            first = max(lo, fi.first_entry)
            part = e[-(first - lo) % step::step]  # from the first pick in this frame
            if out is None:  # (np.concatenate would repack DTYPE's layout)
                out = np.zeros((len(picks),) + part.shape[1:], dtype=part.dtype)  # padding 0, as read()
            out[pos:pos + len(part)] = part
            pos += len(part)
        if out is None or pos != len(picks):
            raise SimtraceError(ERRORS["E_INTERNAL"], "the frames gave %d of the %d entries picked" % (
                pos, len(picks)), self.name)
        return out[::-1] if picks.step < 0 else out

    def __getitem__(self, key):
        if isinstance(key, slice):
            a, b, step = key.indices(self.entries)
            picks = range(a, b, step)
            if len(picks) == 0:
                return self.read(0, 0)
            if step == 1:
                return self.read(a, b)
            return self._stepped(picks)
        i = operator.index(key)  # (a float is a TypeError, as for a list)
        if i < 0:
            i += self.entries
        if not 0 <= i < self.entries:
            raise IndexError("entry %d of stream %r (%d entries)" % (key, self.name, self.entries))
        return self.read(i, i + 1)[0]

    def find_cycle(self, cycle):
        """The index of the first entry whose cycle is >= cycle (len(s) if none)."""
        e = ctypes.c_uint64()
        cycle = operator.index(cycle)
        if cycle < 0:
            raise ValueError("cycle %d is negative" % cycle)
        self._t._check(_L.simtrace_reader_find_cycle(self._t._h(), self.index, min(cycle, UINT64_MAX),
                                                     ctypes.byref(e)), self.name)
        return e.value

    def cycle_range(self, c1=0, c2=None):
        """[a, b): the entry indices of cycles c1..c2-1 (c2 None: to the end)."""
        a = self.find_cycle(c1)
        b = self.entries if c2 is None else max(a, self.find_cycle(c2))
        return a, b

    def cycles(self, c1=0, c2=None):
        """The entries whose cycle is in c1..c2-1, as s[a:b]; what
        `simtrace-cat --cycles=c1:c2` writes."""
        a, b = self.cycle_range(c1, c2)
        return self.read(a, b)

    def frame_info(self, k):
        k = _count(k, "frame")
        fi = _lib.FrameInfo()
        self._t._check(_L.simtrace_reader_frame_info(self._t._h(), self.index, k, ctypes.byref(fi)), self.name)
        return FrameInfo(k, fi)

    def frame_infos(self):
        """The stream's frames (FrameInfo), without decoding anything."""
        for k in range(self.frame_count):
            yield self.frame_info(k)

    def frames(self, a=0, b=None, raw=False):
        """Yield (FrameInfo, entries) frame by frame over entries [a, b)
        (default: all; the first and last frame clipped to the range):
        one frame's entries in memory at a time.  The entries start at
        index max(a, frame.first_entry).  raw=True: in their raw layout."""
        b = self.entries if b is None else min(b, self.entries)
        lo, hi = 0, self.frame_count
        while lo < hi:  # the first frame that ends after a
            mid = (lo + hi) // 2
            fi = self.frame_info(mid)
            if fi.first_entry + fi.entries <= a:
                lo = mid + 1
            else:
                hi = mid
        for k in range(lo, self.frame_count):
            fi = self.frame_info(k)
            if fi.first_entry >= b:
                break
            r = self.raw(max(a, fi.first_entry), min(b, fi.first_entry + fi.entries))
            yield fi, (r if raw else self._entries(r))

    def __iter__(self):
        """Iterate entry by entry (frame by frame underneath)."""
        for _, a in self.frames():
            yield from a

    def value(self, i):
        """The whole value of entry i (d64, d32), least significant byte
        first: wide values (wider than the data field) included."""
        i = _count(i, "entry")
        n = ctypes.c_size_t()
        buf = ctypes.create_string_buffer(4096)
        self._t._check(_L.simtrace_reader_value(self._t._h(), self.index, i, buf, len(buf), ctypes.byref(n)),
                       self.name)
        return buf.raw[:n.value]

    def stats(self):
        """The stream's statistics, the figures of `simtrace-cat --stats`
        (through the library's simtrace_stats_*; every frame is decoded
        once, one at a time).  Returns (summary, frames):

        summary, a dict: entries, frames, raw_bytes, stored_bytes, encoder
        (its name), and for memory streams kind ("read", "write" or None,
        by the stream's name), distinct_lines, distinct_pages,
        distinct_exact, transform_on_frames and transform_off_frames (the
        cmx and mix frames coded with the transform of recent data values
        and without it), sizes ({access size: count}, d64 and d32; the key
        65 counts those above 64 bytes), fields ({"ip": {"coded", "hits",
        "expected", "ids"}, ...}: ids lists the uses of each predictor id,
        the last the misses) and bits (where the stored bits go, in units
        of 1/bits["unit"] bit: ids and misses per field, all_expected_flag,
        frame_headers, coder_rounding, other_encoders, other_encoder_frames,
        payload_bytes; they add up to stored_bytes x 8 x unit).

        frames, a dict of numpy arrays, one element per frame: first_entry,
        entries, stored_bytes, encoder (codec ids), transform (1 coded
        with the transform of recent data values, 0 without, -1 a frame of
        another encoder or type); for memory streams also hit_rate, coded
        and hits, each a dict by field name."""
        return self._t._stats(self)

    def is_wide(self, entries):
        """Mask of the entries (an array of DTYPE) whose value is wider
        than the data field: Stream.value(i) has the whole of it."""
        half = 4 if self.type == _lib.TYPE_D64 else 2
        return ((entries["meta"] & 1) == 0) & (entries["size"] > half)


def _field_names(mask):
    """{index: name} of the fields whose bit is set in mask."""
    return {f: _L.simtrace_stats_field_name(f).decode() for f in range(_lib.STATS_FIELDS) if mask >> f & 1}


def _stats_summary(ss):
    out = {"entries": ss.entries, "frames": ss.frames, "raw_bytes": ss.raw_bytes, "stored_bytes": ss.stored_bytes,
           "encoder": ss.encoder_name.decode()}
    if not ss.fields:
        return out
    names = _field_names(ss.fields)
    p = ss.pred
    out.update({
        "kind": _lib.STATS_KINDS.get(ss.kind),
        "distinct_lines": ss.distinct_lines, "distinct_pages": ss.distinct_pages,
        "distinct_exact": bool(ss.lines_exact and ss.pages_exact),
        "transform_on_frames": ss.transform_on_frames, "transform_off_frames": ss.transform_off_frames,
        "sizes": {z: n for z, n in enumerate(ss.sizes) if n},
        "fields": {name: {"coded": p.coded[f], "hits": p.hits[f], "expected": p.expected[f],
                          "ids": list(p.ids[f])[:_L.simtrace_stats_field_slots(f) + 1]}
                   for f, name in names.items()},
        "bits": {"unit": _lib.STATS_COST_UNIT, "ids": {name: ss.bits_ids[f] for f, name in names.items()},
                 "misses": {name: ss.bits_misses[f] for f, name in names.items()},
                 "all_expected_flag": ss.bits_all_flag, "frame_headers": ss.bits_headers,
                 "coder_rounding": ss.bits_rounding, "other_encoders": ss.bits_other,
                 "other_encoder_frames": ss.other_frames, "payload_bytes": ss.payload_bytes},
    })
    return out


def _stats_frames(mask, cols, coded, hits):
    dtypes = {"encoder": np.uint32, "transform": np.int8}
    out = {k: np.array(v, dtype=dtypes.get(k, np.uint64)) for k, v in cols.items()}
    if not mask:
        return out
    coded = np.array(coded, dtype=np.uint64).reshape(-1, _lib.STATS_FIELDS)
    hits = np.array(hits, dtype=np.uint64).reshape(-1, _lib.STATS_FIELDS)
    names = _field_names(mask)
    out["coded"] = {name: coded[:, f] for f, name in names.items()}
    out["hits"] = {name: hits[:, f] for f, name in names.items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        out["hit_rate"] = {name: np.where(coded[:, f] > 0, hits[:, f] / np.maximum(coded[:, f], 1), 0.0)
                           for f, name in names.items()}
    return out


class Trace:
    """An open trace (random access; a regular file).  streams: the list of
    Stream; t["name"] or t[i] one of them; t.stream() the default one.
    complete: False when the file has no valid directory and footer and was
    read through its frame headers (a SimtraceWarning says so when it is
    opened; incomplete_reason gives the library's words).  threads: frames
    a read or slice spanning several of them decodes at once, each thread
    with decoder tables of its own (the entries are the same for every
    count)."""

    def __init__(self, path, threads=1, ignore_check=False, memlimit=0):
        # str, bytes or a path object, as the os module takes (TypeError else)
        self.path = os.fsdecode(os.fspath(path))
        threads = operator.index(threads)
        if not 0 <= threads < 1 << 32:  # (the library then says which it takes)
            raise ValueError("threads %d is out of range" % threads)
        p = _lib.ReadParams()
        _L.simtrace_read_params_init(ctypes.byref(p))
        p.threads = threads
        p.ignore_check = 1 if ignore_check else 0
        p.memlimit = _count(memlimit, "memlimit")
        stdin = self.path == "-"
        self._refuse_sequential(os.fstat(0) if stdin else self._stat())
        h = ctypes.c_void_p()
        ctypes.set_errno(0)
        if stdin:  # read with pread: the descriptor's offset stays, and it stays open
            e = _L.simtrace_reader_open_fd(ctypes.byref(h), 0, ctypes.byref(p))
        else:
            e = _L.simtrace_reader_open_path(ctypes.byref(h), os.fsencode(self.path), ctypes.byref(p))
        if e:
            err = ctypes.get_errno()
            if e == ERRORS["E_READ"] and err:
                # the system's reason (include/simtrace.h): FileNotFoundError,
                # PermissionError, IsADirectoryError... with errno and filename
                raise OSError(err, os.strerror(err), self.path)
            # no handle, so no message beyond the error's own words
            raise SimtraceError(e, _L.simtrace_strerror(e).decode(), self.path)
        if _L.simtrace_reader_random_access(h) != 1:  # it became a pipe since the check
            _L.simtrace_reader_free(h)
            raise self._sequential_error()
        self._handle = h
        # a file read through its frame headers (no valid directory) is
        # readable, but its streams may end early: say so, once, here
        self.complete = _L.simtrace_reader_complete(h) != 0
        self.incomplete_reason = "" if self.complete else _L.simtrace_reader_message(h).decode("utf-8", "replace")
        if not self.complete:
            warnings.warn(SimtraceWarning("%s: %s" % (self.path, self.incomplete_reason)), stacklevel=3)
        n = ctypes.c_uint32()
        self._check(_L.simtrace_reader_stream_count(h, ctypes.byref(n)))
        self.streams = []
        for i in range(n.value):
            si = _lib.StreamInfo()
            self._check(_L.simtrace_reader_stream_info(h, i, ctypes.byref(si)))
            self.streams.append(Stream(self, si))

    def _stat(self):
        """os.stat of the path, or None where it fails (the library's open
        then says why, through errno)."""
        try:
            return os.stat(self.path)
        except OSError:
            return None

    def _refuse_sequential(self, st):
        """The package reads with random access, which a pipe, socket or
        device does not give: refuse it before opening (a FIFO's open
        would wait for a writer, and a sequential open takes its first
        bytes)."""
        if st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            raise self._sequential_error()

    def _sequential_error(self):
        return SimtraceError(ERRORS["E_SEEK"], "not a regular file (a pipe, socket or device): simtrace reads "
                             "with random access; copy it to a file first, or read it in order with simtrace-cat",
                             "(standard input)" if self.path == "-" else self.path)

    def _h(self):
        if self._handle is None:
            raise SimtraceError(ERRORS["E_STATE"], "the trace is closed", self.path)
        return self._handle

    def _check(self, e, stream=None):
        if e:
            msg = _L.simtrace_reader_message(self._handle).decode("utf-8", "replace") if self._handle else ""
            if not msg:
                msg = _L.simtrace_strerror(e).decode()
            where = self.path if stream is None else "%s: stream '%s'" % (self.path, stream)
            raise SimtraceError(e, msg, where)

    def _stats(self, stream):
        st = ctypes.c_void_p()
        self._check(_L.simtrace_stats_open(ctypes.byref(st), self._h(), stream.name.encode()), stream.name)
        try:
            f = _lib.FrameStats()
            got = ctypes.c_uint32()
            cols = {k: [] for k in ("first_entry", "entries", "stored_bytes", "encoder", "transform")}
            coded, hits = [], []
            while True:
                e = _L.simtrace_stats_next(st, ctypes.byref(f), ctypes.byref(got))
                if e:
                    raise SimtraceError(e, _L.simtrace_stats_message(st).decode("utf-8", "replace"),
                                        "%s: stream '%s'" % (self.path, stream.name))
                if not got.value:
                    break
                for k in cols:
                    cols[k].append(getattr(f, k))
                # the library's 0 none, 1 with, 2 without: here -1, 1, 0
                cols["transform"][-1] = {1: 1, 2: 0}.get(cols["transform"][-1], -1)
                coded.append(list(f.pred.coded))
                hits.append(list(f.pred.hits))
            ss = _lib.StreamStats()
            self._check(_L.simtrace_stats_stream(st, stream.index, ctypes.byref(ss)), stream.name)
        finally:
            _L.simtrace_stats_free(st)
        return _stats_summary(ss), _stats_frames(ss.fields, cols, coded, hits)

    def stream(self, name=None):
        """The stream named name; None: the default stream (the first memory
        stream, else the first), as simtrace-cat chooses it."""
        if name is not None and not isinstance(name, str):
            return self[name]  # an index, as t[i]
        idx = ctypes.c_uint32()
        self._check(_L.simtrace_reader_find_stream(self._h(), None if name is None else name.encode(),
                                                   ctypes.byref(idx)), name)
        return self.streams[idx.value]

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.stream(key)
        return self.streams[key]

    def __len__(self):
        return len(self.streams)

    def __iter__(self):
        return iter(self.streams)

    def close(self):
        if self._handle is not None:
            _L.simtrace_reader_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def open(path, threads=1, ignore_check=False, memlimit=0):  # noqa: A001 (the module's verb)
    """Open the trace at path, a regular file (random access); "-" is
    standard input, which must then be a regular file too (< trace.sim).
    Pipes are refused (SimtraceError E_SEEK): copy them to a file."""
    return Trace(path, threads=threads, ignore_check=ignore_check, memlimit=memlimit)



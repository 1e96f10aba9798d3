"""ctypes bindings of the public libsvpc API (include/simtrace.h).

Only calls and structs of include/simtrace.h are used; the layouts below
mirror that header and must follow it when it grows (structs grow only
into their reserved fields, so a newer library keeps these offsets).
"""
import ctypes
import os
from pathlib import Path

SONAME = "libsvpc.so.0"
ENV = "SIMTRACE_LIBRARY"

NAME_MAX = 255
TYPE_NAME_MAX = 31

TYPE_NONE, TYPE_D64, TYPE_D32, TYPE_M64, TYPE_M32, TYPE_BYTES, TYPE_VBLOCK, TYPE_VPC, TYPE_EVENT, TYPE_USER = range(10)
TYPE_CVP = 12  # a CVP-1 / CBP-2025 record, 128 bytes (formats/cvp.h)
TYPE_DRMEMTRACE = 14

RANGE_ENTRIES = 1


class ReadParams(ctypes.Structure):
    _fields_ = [
        ("threads", ctypes.c_uint32),
        ("ignore_check", ctypes.c_uint32),
        ("memlimit", ctypes.c_uint64),
        ("allocator", ctypes.c_void_p),
        ("keep_failed", ctypes.c_uint32),
        ("reserved0", ctypes.c_uint32),
        ("reserved", ctypes.c_uint64 * 5),
    ]


class StreamInfo(ctypes.Structure):
    _fields_ = [
        ("index", ctypes.c_uint32),
        ("id", ctypes.c_uint32),
        ("name", ctypes.c_char * (NAME_MAX + 1)),
        ("type", ctypes.c_uint32),
        ("entry_size", ctypes.c_uint32),
        ("type_name", ctypes.c_char * (TYPE_NAME_MAX + 1)),
        ("guid", ctypes.c_uint8 * 16),
        ("entries", ctypes.c_uint64),
        ("frames", ctypes.c_uint64),
        ("stored_bytes", ctypes.c_uint64),
        ("first_cycle", ctypes.c_uint64),
        ("last_cycle", ctypes.c_uint64),
        ("has_cycles", ctypes.c_uint32),
        ("cycles_ordered", ctypes.c_uint32),
        ("times_ordered", ctypes.c_uint32),
        ("owner", ctypes.c_uint32),
        ("values", ctypes.c_uint32),
        ("reserved0", ctypes.c_uint32),
        ("reserved", ctypes.c_uint64 * 6),
    ]


class FrameInfo(ctypes.Structure):
    _fields_ = [
        ("first_entry", ctypes.c_uint64),
        ("entries", ctypes.c_uint64),
        ("first_cycle", ctypes.c_uint64),
        ("last_cycle", ctypes.c_uint64),
        ("first_time", ctypes.c_uint64),
        ("last_time", ctypes.c_uint64),
        ("offset", ctypes.c_uint64),
        ("stored_bytes", ctypes.c_uint64),
        ("encoder", ctypes.c_uint32),
        ("has_time", ctypes.c_uint32),
        ("reserved", ctypes.c_uint64 * 4),
    ]


STATS_FIELDS = 5
STATS_IDS = 16
STATS_SIZES = 66
STATS_COST_UNIT = 65536
STATS_KINDS = {1: "read", 2: "write"}


class StatsPred(ctypes.Structure):
    _fields_ = [
        ("coded", ctypes.c_uint64 * STATS_FIELDS),
        ("hits", ctypes.c_uint64 * STATS_FIELDS),
        ("expected", ctypes.c_uint64 * STATS_FIELDS),
        ("ids", (ctypes.c_uint64 * STATS_IDS) * STATS_FIELDS),
    ]


class FrameStats(ctypes.Structure):
    _fields_ = [
        ("stream", ctypes.c_uint32),
        ("encoder", ctypes.c_uint32),
        ("frame", ctypes.c_uint64),
        ("first_entry", ctypes.c_uint64),
        ("entries", ctypes.c_uint64),
        ("stored_bytes", ctypes.c_uint64),
        ("fields", ctypes.c_uint32),
        ("transform", ctypes.c_uint32),
        ("pred", StatsPred),
        ("reserved", ctypes.c_uint64 * 8),
    ]


class StreamStats(ctypes.Structure):
    _fields_ = [
        ("stream", ctypes.c_uint32),
        ("complete", ctypes.c_uint32),
        ("encoder", ctypes.c_uint32),
        ("encoder_name", ctypes.c_char * 16),
        ("kind", ctypes.c_uint32),
        ("fields", ctypes.c_uint32),
        ("entries", ctypes.c_uint64),
        ("frames", ctypes.c_uint64),
        ("raw_bytes", ctypes.c_uint64),
        ("stored_bytes", ctypes.c_uint64),
        ("distinct_lines", ctypes.c_uint64),
        ("distinct_pages", ctypes.c_uint64),
        ("lines_exact", ctypes.c_uint32),
        ("pages_exact", ctypes.c_uint32),
        ("sizes", ctypes.c_uint64 * STATS_SIZES),
        ("pred", StatsPred),
        ("bits_ids", ctypes.c_uint64 * STATS_FIELDS),
        ("bits_misses", ctypes.c_uint64 * STATS_FIELDS),
        ("bits_all_flag", ctypes.c_uint64),
        ("bits_headers", ctypes.c_int64),
        ("bits_rounding", ctypes.c_int64),
        ("bits_other", ctypes.c_int64),
        ("other_frames", ctypes.c_uint64),
        ("payload_bytes", ctypes.c_uint64),
        ("transform_on_frames", ctypes.c_uint64),
        ("transform_off_frames", ctypes.c_uint64),
        ("reserved", ctypes.c_uint64 * 6),
    ]


class Range(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_uint32), ("reserved0", ctypes.c_uint32), ("lo", ctypes.c_uint64),
                ("hi", ctypes.c_uint64)]


def _candidates():
    """Where libsvpc is looked for, in order: $SIMTRACE_LIBRARY; the build
    directory of the source tree this package sits in (python/simtrace ->
    build/); the library directory `make install` recorded; the dynamic
    linker's own search (ld.so.conf, LD_LIBRARY_PATH)."""
    env = os.environ.get(ENV)
    if env:
        return [env]  # asked for explicitly: nothing else is tried
    out = []
    here = Path(__file__).resolve().parent
    out.append(str(here.parent.parent / "build" / SONAME))
    try:
        from . import _install  # written by `make install`
        out.append(os.path.join(_install.LIBDIR, SONAME))
    except ImportError:
        pass
    out.append(SONAME)
    return out


def load():
    tried = []
    for c in _candidates():
        if os.sep in c and not os.path.exists(c):
            tried.append(c + " (missing)")
            continue
        try:
            lib = ctypes.CDLL(c, use_errno=True)  # the opens leave the system's reason in errno
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
            continue
        _declare(lib)
        return lib
    raise ImportError("simtrace: cannot load libsvpc; set %s to the path of %s. Tried: %s"
                      % (ENV, SONAME, "; ".join(tried)))


def error_codes(lib):
    """{"E_RANGE": 23, ...}: every simtrace_error value the library knows,
    by the header's name without its SIMTRACE_ prefix (the library lists
    them from 0 up; simtrace_error_name gives NULL past the last)."""
    codes = {}
    while True:
        name = lib.simtrace_error_name(len(codes))
        if name is None:
            return codes
        codes[name.decode()[len("SIMTRACE_"):]] = len(codes)


def _declare(lib):
    c = ctypes
    P = c.POINTER
    vp = c.c_void_p
    sig = {
        "simtrace_version": (c.c_uint32, []),
        "simtrace_version_string": (c.c_char_p, []),
        "simtrace_strerror": (c.c_char_p, [c.c_int]),
        "simtrace_error_name": (c.c_char_p, [c.c_int]),
        "simtrace_error_is_data": (c.c_int, [c.c_int]),
        "simtrace_type_size": (c.c_size_t, [c.c_int]),
        "simtrace_read_params_init": (None, [P(ReadParams)]),
        "simtrace_reader_open_path": (c.c_int, [P(vp), c.c_char_p, P(ReadParams)]),
        "simtrace_reader_open_fd": (c.c_int, [P(vp), c.c_int, P(ReadParams)]),
        "simtrace_reader_random_access": (c.c_int, [vp]),
        "simtrace_reader_complete": (c.c_int, [vp]),
        "simtrace_reader_stream_count": (c.c_int, [vp, P(c.c_uint32)]),
        "simtrace_reader_stream_info": (c.c_int, [vp, c.c_uint32, P(StreamInfo)]),
        "simtrace_reader_find_stream": (c.c_int, [vp, c.c_char_p, P(c.c_uint32)]),
        "simtrace_reader_read": (c.c_int, [vp, c.c_uint32, c.c_uint64, c.c_uint64, vp, c.c_size_t,
                                           P(c.c_uint64)]),
        "simtrace_reader_find_cycle": (c.c_int, [vp, c.c_uint32, c.c_uint64, P(c.c_uint64)]),
        "simtrace_reader_frame_info": (c.c_int, [vp, c.c_uint32, c.c_uint64, P(FrameInfo)]),
        "simtrace_reader_value": (c.c_int, [vp, c.c_uint32, c.c_uint64, vp, c.c_size_t, P(c.c_size_t)]),
        "simtrace_reader_message": (c.c_char_p, [vp]),
        "simtrace_reader_free": (None, [vp]),
        "simtrace_cursor_open": (c.c_int, [P(vp), vp, c.c_char_p, P(Range)]),
        "simtrace_cursor_next": (c.c_int, [vp, vp, c.c_size_t, P(c.c_uint64), P(c.c_uint64)]),
        "simtrace_cursor_peek": (c.c_int, [vp, P(vp), P(c.c_uint64), P(c.c_uint64)]),
        "simtrace_cursor_free": (None, [vp]),
        "simtrace_access_unpack": (c.c_int, [c.c_int, vp, c.c_size_t, vp]),
        "simtrace_stats_open": (c.c_int, [P(vp), vp, c.c_char_p]),
        "simtrace_stats_next": (c.c_int, [vp, P(FrameStats), P(c.c_uint32)]),
        "simtrace_stats_stream": (c.c_int, [vp, c.c_uint32, P(StreamStats)]),
        "simtrace_stats_message": (c.c_char_p, [vp]),
        "simtrace_stats_free": (None, [vp]),
        "simtrace_stats_field_name": (c.c_char_p, [c.c_uint32]),
        "simtrace_stats_field_slots": (c.c_uint32, [c.c_uint32]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args

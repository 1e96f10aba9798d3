/*
 * simtrace.h - the public API of libsvpc: write and read simtrace
 * containers (compressed memory traces) from C or C++.
 *
 * Installed as <simtrace.h>; link with `pkg-config --cflags --libs svpc`.
 * This header is self-contained: it includes only <stddef.h>, <stdint.h>
 * and <signal.h> (sig_atomic_t, of the imports' stop request), and everything it declares starts with simtrace_ or
 * SIMTRACE_.  The container format is formats/SIMTRACE.md of the source.
 *
 * Stability: this header is API version SIMTRACE_API_VERSION.  Within one
 * major version (the soname, libsvpc.so.0) calls are only added, the
 * values of simtrace_error and simtrace_type never change, and structs
 * passed in or out only grow into their `reserved` fields, which callers
 * leave zero (use the *_init functions, or zero the struct).  The encoder
 * is chosen by profile name; its second stage and level by number.
 *
 * Conventions for every call:
 *   - Calls that can fail return simtrace_error: SIMTRACE_OK (0) or a
 *     failure.  Out parameters are written only on SIMTRACE_OK unless the
 *     call says otherwise.  Handles passed NULL give SIMTRACE_E_USAGE.
 *   - Every handle (writer, reader, cursor) is used by one thread at a
 *     time; distinct handles share nothing and may be used from different
 *     threads at once.  The library runs worker threads of its own inside
 *     a handle (params.threads); they never call back into the caller,
 *     except the I/O callbacks, which are called on the thread that made
 *     the call, one at a time.  Functions taking no handle
 *     (simtrace_version*, simtrace_strerror, simtrace_type_*,
 *     simtrace_entry_*) are safe from any thread.
 *   - Strings returned are either static (say so) or owned by the handle
 *     and valid until the next call on that handle or its free.
 *   - Information is copied out into caller-owned structs; no pointer into
 *     the library's tables is ever returned.
 *   - Entries go in and come out as their raw little-endian layout
 *     (SIMTRACE_TYPE_D64: 32 bytes, ...); simtrace_entry_unpack/pack
 *     convert one entry, simtrace_access_unpack many.
 */
#ifndef SIMTRACE_PUBLIC_H
#define SIMTRACE_PUBLIC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Exported symbols.  libsvpc is built with -fvisibility=hidden and exports
 * exactly the calls marked SIMTRACE_API. */
#if defined(_WIN32) && defined(SIMTRACE_BUILDING)
#define SIMTRACE_API __declspec(dllexport)
#elif defined(__GNUC__) && defined(SIMTRACE_BUILDING)
#define SIMTRACE_API __attribute__((visibility("default")))
#else
#define SIMTRACE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version --------------------------------------------------------------- */

#define SIMTRACE_VERSION_MAJOR 0
#define SIMTRACE_VERSION_MINOR 2
#define SIMTRACE_VERSION_PATCH 0
/* major * 1000000 + minor * 1000 + patch, as simtrace_version() returns */
#define SIMTRACE_VERSION \
    (SIMTRACE_VERSION_MAJOR * 1000000u + SIMTRACE_VERSION_MINOR * 1000u + SIMTRACE_VERSION_PATCH)
#define SIMTRACE_VERSION_STRING "0.2.0"

/* The version of the library linked at run time (SIMTRACE_VERSION is the
 * one compiled against).  Thread-safe. */
SIMTRACE_API uint32_t simtrace_version(void);
/* The same as "major.minor.patch"; static string.  Thread-safe. */
SIMTRACE_API const char *simtrace_version_string(void);

/* ---- errors ------------------------------------------------------------------ */

/* Values never change once released; new ones are only added. */
typedef enum simtrace_error {
    SIMTRACE_OK = 0,
    SIMTRACE_E_NOMEM = 1,         /* out of memory */
    SIMTRACE_E_MEMLIMIT = 2,      /* a frame would need more than params.memlimit */
    SIMTRACE_E_USAGE = 3,         /* invalid argument (NULL handle, bad name, type, size...) */
    SIMTRACE_E_READ = 4,          /* reading the input failed (read callback: returned < 0) */
    SIMTRACE_E_WRITE = 5,         /* writing the output failed (write callback: returned != 0) */
    SIMTRACE_E_SEEK = 6,          /* the input is not seekable where that is needed */
    SIMTRACE_E_BAD_MAGIC = 7,     /* not a simtrace container */
    SIMTRACE_E_VERSION = 8,       /* container version not supported */
    SIMTRACE_E_TRUNCATED = 9,     /* the input ends early */
    SIMTRACE_E_HEADER_CRC = 10,   /* a header's checksum does not match */
    SIMTRACE_E_PAYLOAD_CRC = 11,  /* a frame payload's checksum does not match */
    SIMTRACE_E_ENTRY_CRC = 12,    /* decoded entries' checksum does not match */
    SIMTRACE_E_CORRUPT = 13,      /* corrupt data */
    SIMTRACE_E_BAD_FRAME = 14,    /* invalid frame header */
    SIMTRACE_E_BAD_ATTR = 15,     /* invalid attribute */
    SIMTRACE_E_BAD_DIRECTORY = 16,/* invalid directory */
    SIMTRACE_E_BAD_FOOTER = 17,   /* invalid footer */
    SIMTRACE_E_BAD_STREAM = 18,   /* invalid stream descriptor */
    SIMTRACE_E_UNSUPPORTED = 19,  /* encoder, type or flag not supported */
    SIMTRACE_E_TOO_LARGE = 20,    /* beyond the format's limits */
    SIMTRACE_E_PARTIAL_ENTRY = 21,/* input ends inside an entry */
    SIMTRACE_E_SECOND_STAGE = 22, /* compressed data (second stage) is corrupt */
    SIMTRACE_E_RANGE = 23,        /* an entry index or range lies outside the stream */
    SIMTRACE_E_SYNTAX = 24,       /* (importers) malformed input line */
    SIMTRACE_E_NOT_FORMAT = 25,   /* (importers) input is not in the named format */
    SIMTRACE_E_CYCLE_ORDER = 26,  /* cycles decrease within a stream */
    SIMTRACE_E_THREAD = 27,       /* cannot start a thread */
    SIMTRACE_E_INTERNAL = 28,     /* internal error (a bug) */
    SIMTRACE_E_STATE = 29,        /* call out of order: writing to a closed trace,
                                     reading with random access from a pipe... */
    SIMTRACE_E_NOT_FOUND = 30,    /* no stream of that name */
    SIMTRACE_E_BUFFER = 31,       /* the caller's buffer is too small (nothing written to it) */
} simtrace_error;

/* A one-line message for e ("out of memory"); static string, never NULL
 * (unknown values give "unknown error").  Thread-safe. */
SIMTRACE_API const char *simtrace_strerror(int e);

/* The enumerator's name of e ("SIMTRACE_E_PAYLOAD_CRC", "SIMTRACE_OK"),
 * as spelled in this header; static string; NULL for a value this
 * library does not know (so a caller, or a binding, can list the values
 * from 0 up until NULL).  Thread-safe. */
SIMTRACE_API const char *simtrace_error_name(int e);

/* 1 when e says the input's content is bad (corrupt, truncated,
 * unsupported), 0 otherwise (I/O, usage, resources).  Thread-safe. */
SIMTRACE_API int simtrace_error_is_data(int e);

/* ---- allocator -------------------------------------------------------------- */

/*
 * Optional: where the memory of a handle comes from (NULL in the params:
 * malloc/free).  alloc returns NULL on failure (the call then fails with
 * SIMTRACE_E_NOMEM); free accepts NULL.  Both may be called from the
 * handle's worker threads at once, so they must be thread-safe.
 * The allocator serves the handles (writer, reader, cursors) and the
 * tables the API layer keeps for them (per-stream records, the stream
 * list of a sequential reader); decoded frames, the codec's tables and
 * the frames in flight between worker threads come from malloc.  The
 * struct is read at creation and must stay valid until the handle is
 * freed.
 */
typedef struct simtrace_allocator {
    void *(*alloc)(void *opaque, size_t size);
    void (*free)(void *opaque, void *ptr);
    void *opaque;
} simtrace_allocator;

/* ---- entry types --------------------------------------------------------- */

/* Stream types.  Values never change. */
typedef enum simtrace_type {
    SIMTRACE_TYPE_NONE = 0,
    SIMTRACE_TYPE_D64 = 1,    /* 32 bytes: u64 meta, u64 ip, u64 address, u64 data */
    SIMTRACE_TYPE_D32 = 2,    /* 20 bytes: u64 meta, u32 ip, u32 address, u32 data */
    SIMTRACE_TYPE_M64 = 3,    /* 24 bytes: u64 meta, u64 ip, u64 address */
    SIMTRACE_TYPE_M32 = 4,    /* 16 bytes: u64 meta, u32 ip, u32 address */
    SIMTRACE_TYPE_BYTES = 5,  /* an opaque byte stream: 1-byte entries */
    SIMTRACE_TYPE_VBLOCK = 6, /* 32 bytes: a block of a wide value (the library writes these) */
    SIMTRACE_TYPE_VPC = 7,    /* 12 bytes: u32 pc, u64 extended data (legacy VPC traces) */
    SIMTRACE_TYPE_EVENT = 8,  /* 24 bytes: u64 meta (cycle | kind << 48), u64 ip, u32 vector, u32 error code */
    SIMTRACE_TYPE_USER = 9,   /* fixed-size entries of a caller's type, named by a 16-byte GUID */
    SIMTRACE_TYPE_CHAMPSIM = 10,    /* 64 bytes: a ChampSim input_instr record, as ChampSim's traces hold it */
    SIMTRACE_TYPE_CHAMPSIM_CS = 11, /* 96 bytes: a ChampSim cloudsuite_instr record, padding included */
    SIMTRACE_TYPE_CVP = 12,   /* 128 bytes: one CVP-1 / CBP-2025 instruction record with its output values */
    SIMTRACE_TYPE_DRMEMTRACE = 14, /* 12 bytes: DynamoRIO drmemtrace trace_entry_t {u16 type, u16 size, u64 addr} */
} simtrace_type;

#define SIMTRACE_NAME_MAX 255u       /* bytes of a stream name, without the NUL */
#define SIMTRACE_TYPE_NAME_MAX 31u   /* bytes of a user type's label */
#define SIMTRACE_USER_ENTRY_MAX 65536u /* largest entry of a user type, bytes */
#define SIMTRACE_VALUE_MAX 4096u     /* longest wide value, bytes */
#define SIMTRACE_CYCLE_MAX ((UINT64_C(1) << 48) - 1) /* cycles are 48 bits */

/* Bytes of one entry of a built-in type; 0 for NONE, USER and unknown
 * values.  Thread-safe. */
SIMTRACE_API size_t simtrace_type_size(int type);
/* Short name: "d64", "d32", "m64", "m32", "bytes", "vblock", "vpc",
 * "event", "user"; "?" if unknown.  Static string.  Thread-safe. */
SIMTRACE_API const char *simtrace_type_name(int type);

/*
 * One memory entry (d64, d32, m64, m32) unpacked.  meta16 is bits 48..63
 * of the entry's meta word: bit 0 fullSize (the access has the target's
 * full width), bits 1..15 the producer's tag.  With fullSize 0, data holds
 * the access size in bytes in its upper half and the value in its lower
 * half (d64: size << 32 | value); a d64 access wider than 4 bytes that is
 * not full-size is a wide access, whose whole value the library keeps
 * alongside (simtrace_writer_write_wide, simtrace_reader_value).
 */
typedef struct simtrace_entry {
    uint64_t cycle; /* 0..SIMTRACE_CYCLE_MAX */
    uint64_t meta16;
    uint64_t ip;
    uint64_t address;
    uint64_t data;  /* 0 in m64, m32 */
} simtrace_entry;

/* Unpack the entry at raw (simtrace_type_size(type) bytes) of a memory
 * type.  Returns SIMTRACE_OK or SIMTRACE_E_USAGE (not a memory type).
 * Thread-safe. */
SIMTRACE_API simtrace_error simtrace_entry_unpack(int type, const void *raw, simtrace_entry *out);
/* Pack e into raw (simtrace_type_size(type) bytes); fields wider than the
 * layout are truncated, the cycle to 48 bits.  Returns SIMTRACE_OK or
 * SIMTRACE_E_USAGE.  Thread-safe. */
SIMTRACE_API simtrace_error simtrace_entry_pack(int type, const simtrace_entry *e, void *raw);

/*
 * One memory access unpacked with its size and value apart, for reading
 * many at once (simtrace_access_unpack; the Python package's arrays have
 * this layout): 40 bytes, every field at its natural alignment.
 */
typedef struct simtrace_access {
    uint64_t cycle;    /* 0..SIMTRACE_CYCLE_MAX */
    uint64_t ip;
    uint64_t address;
    uint64_t value;    /* fullSize: the whole data field; else its lower half
                          (d64: 32 bits, d32: 16 bits); 0 in m64, m32 */
    uint32_t size;     /* bytes: with fullSize the target's width (d64 8,
                          d32 4); else the data field's upper half; 0 in m64, m32 */
    uint16_t meta16;   /* as simtrace_entry's */
    uint16_t reserved; /* 0 */
} simtrace_access;

/* Unpack count entries of a memory type, packed at raw (count x
 * simtrace_type_size(type) bytes), into out[0 .. count-1].  Returns
 * SIMTRACE_OK or SIMTRACE_E_USAGE (not a memory type; raw or out NULL
 * with count above 0).  Thread-safe. */
SIMTRACE_API simtrace_error simtrace_access_unpack(int type, const void *raw, size_t count, simtrace_access *out);

/* ---- writing ------------------------------------------------------------------ */

typedef struct simtrace_writer simtrace_writer;

/* Encoder profiles: how hard the library works to compress. */
typedef enum simtrace_profile {
    SIMTRACE_PROFILE_DEFAULT = 0, /* what svpc-compress does by default */
    SIMTRACE_PROFILE_FAST = 1,    /* the fast encoder (level 1's): several
                                     times faster to write and read, larger */
    SIMTRACE_PROFILE_COMPAT = 2,  /* readable by svpc 0.1 (container 1.1) */
} simtrace_profile;

typedef struct simtrace_write_params {
    uint32_t threads;       /* encoder threads 1..64; 0: 1.  The bytes written
                               are the same for every thread count. */
    uint32_t frame_entries; /* entries per frame; 0: 1048576 (2^20), in a
                               stream the fast encoder codes 262144 (2^18),
                               whatever the profile.  At most
                               16777216.  A frame is the unit of random access
                               and of what a crash loses (simtrace_writer_flush) */
    uint32_t profile;       /* simtrace_profile, unless profile_name is set */
    uint32_t timestamps;    /* 1: record wall-clock time per frame, so that
                               entries can be found by time (the bytes then
                               differ run to run) */
    uint32_t check_cycles;  /* 1: refuse memory entries whose cycle is below
                               the one before them in their stream
                               (SIMTRACE_E_CYCLE_ORDER) */
    uint32_t stage;         /* simtrace_stage: the second stage of the
                               encoders that have one (all but cm2, cmx,
                               best, mix and fast, and the generic coding
                               of other types); 0: lzma */
    const char *profile_name; /* NULL, or a profile by name: "default",
                                 "fast", "compat", or an encoder of the
                                 programs' -e: "cmx", "cm2", "best", "mix",
                                 "fast", "cm", "cm1", "paper", "generic";
                                 read at creation */
    const simtrace_allocator *allocator; /* NULL: malloc */
    uint32_t level;         /* 1..9, 0: 6.  With the default profile, the
                               whole method (the programs' -1..-9): 1..5 the
                               fast encoder (more zstd effort each, one
                               decoder), 6 cmx (cm2 with the transform of
                               recent values), 7..9 mix (one,
                               two and three more contexts, with the
                               transform); the second stage's level for
                               what the method codes generically.  With
                               another profile or an encoder named, that
                               encoder's level: its second stage's, or fast's
                               zstd effort ("fast" without one: 1) */
    uint32_t reserved1;
    uint64_t reserved[5];   /* zero */
} simtrace_write_params;

/* Second stages (simtrace_write_params.stage), as the programs' -s names
 * them.  Values never change. */
typedef enum simtrace_stage {
    SIMTRACE_STAGE_DEFAULT = 0, /* lzma */
    SIMTRACE_STAGE_LZMA = 1,
    SIMTRACE_STAGE_BZIP2 = 2,
    SIMTRACE_STAGE_ZLIB = 3,
    SIMTRACE_STAGE_NONE = 4,    /* the first stage's output is stored as it is */
} simtrace_stage;

/*
 * Why p's second stage or level would change nothing in how entries of
 * type t are coded (the method's encoder has no second stage, or takes no
 * level, or its stage is none): a sentence naming which ("a second stage
 * was asked for, and it has none"), or NULL when both apply or were not
 * given (0), or p is invalid.  *encoder (if not NULL) is then the name of
 * the encoder that codes t.  A level with the default profile chooses the
 * method, so it always applies.  svpc-compress refuses such options.
 */
SIMTRACE_API const char *simtrace_write_params_unused(const simtrace_write_params *p, int type,
                                                      const char **encoder);

/* Fill p with the defaults (1 thread, the method's entries per frame,
 * default profile, second stage lzma at level 6, no timestamps, no cycle check).
 * Thread-safe. */
SIMTRACE_API void simtrace_write_params_init(simtrace_write_params *p);

/*
 * Caller-supplied output.  write must take all size bytes and return 0, or
 * return nonzero on failure (the writer then fails with SIMTRACE_E_WRITE
 * and writes nothing more).  The output is written strictly forward, once:
 * it may be a pipe, a socket, a compressor.  Called only from inside
 * simtrace_writer_* calls, on the calling thread.  The struct is copied.
 */
typedef struct simtrace_write_io {
    int (*write)(void *opaque, const void *buf, size_t size);
    void *opaque;
} simtrace_write_io;

/*
 * Create a trace and write its file header.  params NULL: the defaults.
 *   _path: creates or truncates the file (mode 0666 before umask); the
 *          writer closes it when freed.
 *   _fd:   any descriptor open for writing (file, pipe, socket); not closed.
 *   _io:   the write callback above.
 * Returns SIMTRACE_OK; SIMTRACE_E_USAGE (bad params or profile name);
 * SIMTRACE_E_WRITE (open or write failed: from _path and _fd, errno then
 * holds the system's reason, ENOENT, EACCES, ENOSPC...); SIMTRACE_E_NOMEM;
 * SIMTRACE_E_THREAD.  On failure *w is NULL.
 */
SIMTRACE_API simtrace_error simtrace_writer_create_path(simtrace_writer **w, const char *path,
                                                        const simtrace_write_params *params);
SIMTRACE_API simtrace_error simtrace_writer_create_fd(simtrace_writer **w, int fd, const simtrace_write_params *params);
SIMTRACE_API simtrace_error simtrace_writer_create_io(simtrace_writer **w, const simtrace_write_io *io,
                                                      const simtrace_write_params *params);

/*
 * Add a stream of a built-in type (d64, d32, m64, m32, bytes, vpc, event;
 * not vblock, not user) named name (1..255 bytes, unique in the trace).
 * *id receives its stream number, counted from 0 in the order of adding;
 * the same number lists it when the trace is read.
 * The profile's encoder codes the types it knows (the memory types; cm,
 * cm1 also vpc).  Memory types that it does not code (a profile naming
 * another tool's encoder, "champsim", "cvp", "drmx") take the encoder the
 * level chooses without one (cmx at level 6); the others are compressed
 * generically.
 * Returns SIMTRACE_OK; SIMTRACE_E_USAGE (bad or duplicate name, bad
 * type); SIMTRACE_E_STATE (the trace is closed or failed);
 * SIMTRACE_E_WRITE; SIMTRACE_E_NOMEM.
 */
SIMTRACE_API simtrace_error simtrace_writer_add_stream(simtrace_writer *w, const char *name, int type, uint32_t *id);

/*
 * Add a stream of a caller-defined fixed-size type: guid identifies the
 * type (16 bytes, not one of the built-in types' GUIDs), entry_size is
 * 1..SIMTRACE_USER_ENTRY_MAX, type_name a label of 1..31 bytes (NULL:
 * "user").  Such entries are compressed as bytes (generic encoder).
 * Returns as simtrace_writer_add_stream.
 */
SIMTRACE_API simtrace_error simtrace_writer_add_user_stream(simtrace_writer *w, const char *name,
                                                            const uint8_t guid[16], uint32_t entry_size,
                                                            const char *type_name, uint32_t *id);

/*
 * Append count entries (count x the stream's entry size bytes at entries,
 * copied before the call returns) to stream id.  Frames are cut every
 * frame_entries entries and compressed by the worker threads while the
 * caller goes on.  A writer of several streams holds at most 8 frames of
 * entries in the frames being filled, together: past that, the frame of
 * the stream holding most is cut early, so memory does not grow with the
 * number of streams (the cuts depend on the calls alone, not on the
 * thread count).
 * Returns SIMTRACE_OK; SIMTRACE_E_USAGE (unknown id, entries NULL with
 * count > 0); SIMTRACE_E_STATE (closed, or failed before);
 * SIMTRACE_E_CYCLE_ORDER (check_cycles: the entries before the offending
 * one were appended, the rest of this call's were not; the writer stays
 * usable; simtrace_writer_message says which); SIMTRACE_E_WRITE;
 * SIMTRACE_E_NOMEM; SIMTRACE_E_TOO_LARGE.  After any other failure the
 * writer only accepts simtrace_writer_free.
 */
SIMTRACE_API simtrace_error simtrace_writer_write(simtrace_writer *w, uint32_t id, const void *entries, size_t count);

/*
 * Append one d64 or d32 entry (raw layout at entry) whose value is wider
 * than its data field: len bytes at value (1..SIMTRACE_VALUE_MAX, least
 * significant first).  The entry is stored with fullSize 0, size len and
 * the value's low bytes in data; the whole value goes to the stream's
 * companion "NAME.vdata", added on first use.  Read it back with
 * simtrace_reader_value.  Returns as simtrace_writer_write, and
 * SIMTRACE_E_USAGE for a type other than d64/d32 or a len that fits the
 * data field (d64: len <= 4; d32: len <= 2).
 */
SIMTRACE_API simtrace_error simtrace_writer_write_wide(simtrace_writer *w, uint32_t id, const void *entry,
                                                       const void *value, size_t len);

/*
 * Cut a frame of every stream's pending entries, and return when every
 * frame so far is written to the output: if the program dies after this,
 * a reader recovers everything written before the flush (files without
 * directory are read through their frame headers).  Frequent flushes make
 * smaller frames: worse compression.  Does not fsync.
 * Returns SIMTRACE_OK; SIMTRACE_E_STATE; SIMTRACE_E_WRITE; SIMTRACE_E_NOMEM.
 */
SIMTRACE_API simtrace_error simtrace_writer_flush(simtrace_writer *w);

/*
 * Finish the trace: cut the pending frames, wait for the workers, write
 * the directory and the footer.  The trace is then complete; the handle
 * stays valid for simtrace_writer_entries and _message, and refuses
 * further writes (SIMTRACE_E_STATE).  A second close returns
 * SIMTRACE_E_STATE.  Returns SIMTRACE_OK; SIMTRACE_E_STATE;
 * SIMTRACE_E_WRITE; SIMTRACE_E_NOMEM; SIMTRACE_E_TOO_LARGE.
 */
SIMTRACE_API simtrace_error simtrace_writer_close(simtrace_writer *w);

/* Entries appended to stream id so far (*entries), or to all streams
 * (id = UINT32_MAX; wide values' blocks included).  Bytes written so far
 * (*bytes).  Either pointer may
 * be NULL.  Returns SIMTRACE_OK or SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_writer_entries(const simtrace_writer *w, uint32_t id, uint64_t *entries,
                                                    uint64_t *bytes);

/* What the last failed call on w found wrong, in words ("stream 'cpu0':
 * entry 12 has cycle 5, below cycle 9 of the entry before it"); "" after
 * success.  Owned by w. */
SIMTRACE_API const char *simtrace_writer_message(const simtrace_writer *w);

/* Release the writer: stops the workers, closes a file opened by _path.
 * A trace not closed is left without directory (still readable, through
 * its frame headers, up to the last frame written).  NULL is allowed. */
SIMTRACE_API void simtrace_writer_free(simtrace_writer *w);

/* ---- reading ------------------------------------------------------------------ */

typedef struct simtrace_reader simtrace_reader;
typedef struct simtrace_cursor simtrace_cursor;

typedef struct simtrace_read_params {
    uint32_t threads;      /* decoder threads, 1..64; 0: 1: of a sequential
                              read, and of each random-access cursor (and
                              simtrace_reader_read) whose range spans
                              several frames, each thread with decoder
                              tables of its own (tens of MiB): a caller
                              opening many cursors at once (a merge) keeps
                              1.  The entries are the same for every count */
    uint32_t ignore_check; /* 1: do not compare decoded entries with their
                              stored checksums (payload checksums are still
                              checked); faster */
    uint64_t memlimit;     /* bytes a frame may need to decode; 0: no limit
                              beyond the format's (SIMTRACE_E_MEMLIMIT) */
    const simtrace_allocator *allocator; /* NULL: malloc */
    uint32_t keep_failed;  /* 1: an open that fails on the input's content
                              or reading (not on usage or memory) still
                              gives its handle, so that
                              simtrace_reader_message and
                              simtrace_reader_place say what and where;
                              simtrace_reader_next_frame and
                              simtrace_cursor_open then return the open's
                              error, and the handle lists no stream */
    uint32_t reserved0;    /* zero */
    uint64_t reserved[5];  /* zero */
} simtrace_read_params;

/* Fill p with the defaults.  Thread-safe. */
SIMTRACE_API void simtrace_read_params_init(simtrace_read_params *p);

/*
 * Caller-supplied input, read sequentially.  read puts up to size bytes at
 * buf and returns how many (0: end of input), or -1 on failure.  Called
 * inside simtrace_reader_open_io and the calls that read a sequential
 * reader (the cursor calls, simtrace_reader_next_frame,
 * simtrace_stats_next), on the thread that makes them (the library starts
 * no thread of its own to read).  The struct is copied.
 */
typedef struct simtrace_read_io {
    int64_t (*read)(void *opaque, void *buf, size_t size);
    void *opaque;
} simtrace_read_io;

/*
 * Open a trace.
 *   _path: a regular file, read with random access through its directory
 *          (a file cut off without directory is read through its frame
 *          headers); the reader closes it.
 *   _fd:   a regular file gives random access as _path does (the
 *          descriptor is read with pread, its offset untouched, not
 *          closed); anything else (a pipe, a socket) is read sequentially.
 *   _io:   sequential, through the read callback.
 * Random access reads only the footer, directory and stream descriptors
 * here.  A sequential reader reads the file header only; its streams are
 * known as the input goes by, and entries come through a cursor only.
 * Returns SIMTRACE_OK; SIMTRACE_E_READ (open or read failed);
 * SIMTRACE_E_BAD_MAGIC, _VERSION, _HEADER_CRC, _TRUNCATED and other data
 * errors; SIMTRACE_E_NOMEM; SIMTRACE_E_THREAD; SIMTRACE_E_USAGE.  On
 * failure *r is NULL (unless params.keep_failed asks for the handle, to
 * ask it what and where), so there is no handle to ask for the message:
 * after SIMTRACE_E_READ from _path or _fd, errno holds the system's
 * reason (ENOENT, EACCES, EISDIR, EIO...: strerror(errno) is the message;
 * after _io's, errno is whatever the callback left); for a damaged input,
 * simtrace-cat --verify shows where.  errno is thread-local, so this is
 * thread-safe as the rest.
 */
SIMTRACE_API simtrace_error simtrace_reader_open_path(simtrace_reader **r, const char *path,
                                                      const simtrace_read_params *params);
SIMTRACE_API simtrace_error simtrace_reader_open_fd(simtrace_reader **r, int fd, const simtrace_read_params *params);
SIMTRACE_API simtrace_error simtrace_reader_open_io(simtrace_reader **r, const simtrace_read_io *io,
                                                    const simtrace_read_params *params);

/* 1 for random access (a regular file), 0 for sequential; -1 for NULL. */
SIMTRACE_API int simtrace_reader_random_access(const simtrace_reader *r);

/*
 * Whether a random-access reader found the trace whole: 1 when it read its
 * directory and footer; 0 when it read the file through its frame headers
 * instead, because they are missing or damaged (a file cut off, a writer
 * that was never closed): the entries listed are those of the complete
 * frames before the end or the damage, and what was written after them is
 * not known.  With 0, simtrace_reader_message says what was wrong and how
 * far the frames go ("no valid directory and footer (...): read through
 * its frame headers, 3 complete data frames (3145728 entries) up to byte
 * offset 99812 of 100000"); with 1 it is "".  -1 for NULL and for a
 * sequential reader, whose cursor reports a cut-off input at its end
 * (SIMTRACE_E_TRUNCATED, after the entries of the complete frames).
 * Decodes and reads nothing.  The reader's message is replaced (as by any
 * call on it), so a pointer from simtrace_reader_message then shows this
 * call's text.
 */
SIMTRACE_API int simtrace_reader_complete(simtrace_reader *r);

/* Everything about one stream, copied out. */
typedef struct simtrace_stream_info {
    uint32_t index;       /* position in the reader's list, 0..count-1 */
    uint32_t id;          /* stream id in the file (usually = index) */
    char name[SIMTRACE_NAME_MAX + 1]; /* NUL-terminated */
    uint32_t type;        /* simtrace_type; USER for a GUID this library does not know */
    uint32_t entry_size;  /* bytes per entry */
    char type_name[SIMTRACE_TYPE_NAME_MAX + 1]; /* "d64"...; a user type's label */
    uint8_t guid[16];     /* the type's GUID */
    uint64_t entries;     /* random access: all; sequential: in the frames seen so far */
    uint64_t frames;      /* data frames: all; sequential: seen so far */
    uint64_t stored_bytes;/* random access: bytes of its frames; sequential: 0 */
    uint64_t first_cycle, last_cycle; /* of its first and last frame (random
                                         access, has_cycles, frames > 0) */
    uint32_t has_cycles;  /* 1: entries carry a cycle (memory types, event) */
    uint32_t cycles_ordered; /* 1: random access, and cycles never decrease
                                from frame to frame: find/ranges by cycle work */
    uint32_t times_ordered;  /* 1: random access, written with timestamps:
                                find/ranges by time work */
    uint32_t owner;       /* vblock streams: the index of the stream whose wide
                             values they hold; UINT32_MAX otherwise */
    uint32_t values;      /* index of this stream's vblock companion, or
                             UINT32_MAX: wide values, if any, are not kept */
    uint32_t reserved0;
    uint64_t reserved[6];
} simtrace_stream_info;

/* Streams known so far (random access: all) in *count.  Returns
 * SIMTRACE_OK or SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_reader_stream_count(const simtrace_reader *r, uint32_t *count);

/* Copy stream index's information to *info.  Returns SIMTRACE_OK;
 * SIMTRACE_E_RANGE (index >= count); SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_reader_stream_info(const simtrace_reader *r, uint32_t index,
                                                        simtrace_stream_info *info);

/* The index of the stream named name in *index.  name NULL: the default
 * stream, as simtrace-cat chooses it: the first memory stream (d64, d32,
 * m64, m32), else the first stream.  Returns SIMTRACE_OK;
 * SIMTRACE_E_NOT_FOUND (no such stream, or none at all; on a sequential
 * reader: not declared so far); SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_reader_find_stream(const simtrace_reader *r, const char *name,
                                                        uint32_t *index);

/*
 * Random access only.  Copy entries [a, b) of stream index into buf
 * (size bytes): b is clipped to the stream's end (b = UINT64_MAX: to the
 * end); *count receives the number of entries copied, (min(b, end) - a).
 * Only the frames holding them are decoded, each only up to the last
 * entry needed, and every entry returned is checked against its stored
 * checksum (unless params.ignore_check).
 * Returns SIMTRACE_OK; SIMTRACE_E_BUFFER (size < count x entry size:
 * nothing copied, *count says how many entries the range holds);
 * SIMTRACE_E_RANGE (a > b, or a past the stream's end);
 * SIMTRACE_E_STATE (a sequential reader); SIMTRACE_E_USAGE; data errors
 * (simtrace_reader_message says where); SIMTRACE_E_READ; SIMTRACE_E_NOMEM;
 * SIMTRACE_E_MEMLIMIT.
 */
SIMTRACE_API simtrace_error simtrace_reader_read(simtrace_reader *r, uint32_t index, uint64_t a, uint64_t b,
                                                 void *buf, size_t size, uint64_t *count);

/*
 * Random access only.  *entry receives the index of the first entry of
 * stream index whose cycle is >= cycle (the stream's entry count if none):
 * [find(c1), find(c2)) are the entries of cycles c1..c2-1.  Decodes at
 * most one frame.  Returns SIMTRACE_OK; SIMTRACE_E_USAGE (the type has no
 * cycles); SIMTRACE_E_CYCLE_ORDER (the stream's cycles decrease, so a
 * cycle does not name a place: use entry indices); SIMTRACE_E_STATE
 * (sequential reader); data and I/O errors.
 */
SIMTRACE_API simtrace_error simtrace_reader_find_cycle(simtrace_reader *r, uint32_t index, uint64_t cycle,
                                                       uint64_t *entry);

/*
 * Random access only.  *entry receives the first entry of the first frame
 * of stream index whose time span reaches wall-clock time t (its last
 * time >= t; ns since 1970; the trace must be written with timestamps;
 * time is recorded per frame, so this is exact to a frame); the entry
 * count if none.  Decodes nothing.  Returns SIMTRACE_OK; SIMTRACE_E_UNSUPPORTED (no ordered
 * timestamps); SIMTRACE_E_STATE; SIMTRACE_E_USAGE.
 */
SIMTRACE_API simtrace_error simtrace_reader_find_time(simtrace_reader *r, uint32_t index, uint64_t t,
                                                      uint64_t *entry);

/*
 * Random access only.  The whole value of entry `entry` of stream index
 * (d64, d32), least significant byte first, into buf (size bytes); *len
 * receives its length.  For an entry that is not wide, or whose stream
 * keeps no wide values, this is the value in its data field (fullSize:
 * 8 or 4 bytes; otherwise its size, at most 4 or 2 bytes).
 * Returns SIMTRACE_OK; SIMTRACE_E_BUFFER (size < the value's length:
 * nothing copied, *len says how long); SIMTRACE_E_RANGE (no such entry);
 * SIMTRACE_E_USAGE (not d64/d32); SIMTRACE_E_STATE; SIMTRACE_E_CORRUPT
 * (the value's blocks are missing or malformed); data and I/O errors.
 */
SIMTRACE_API simtrace_error simtrace_reader_value(simtrace_reader *r, uint32_t index, uint64_t entry, void *buf,
                                                  size_t size, size_t *len);

/* One data frame of a stream, as the directory describes it. */
typedef struct simtrace_frame_info {
    uint64_t first_entry;  /* index in the stream of its first entry */
    uint64_t entries;      /* entries it holds */
    uint64_t first_cycle, last_cycle; /* of its first and last entry (has_cycles) */
    uint64_t first_time, last_time;   /* ns since 1970 (has_time) */
    uint64_t offset;       /* byte offset of its header in the file */
    uint64_t stored_bytes; /* header + payload bytes */
    uint32_t encoder;      /* the codec's id (formats/SIMTRACE.md section 6) */
    uint32_t has_time;     /* 1: written with timestamps */
    uint64_t reserved[4];
} simtrace_frame_info;

/*
 * Random access only.  Copy frame k (0..info.frames-1, in entry order) of
 * stream index to *info.  Decodes nothing: a reader walks a stream frame
 * by frame with [first_entry, first_entry + entries) ranges, holding one
 * frame at a time.  Returns SIMTRACE_OK; SIMTRACE_E_RANGE (no such stream
 * or frame); SIMTRACE_E_STATE (sequential reader); SIMTRACE_E_USAGE.
 */
SIMTRACE_API simtrace_error simtrace_reader_frame_info(simtrace_reader *r, uint32_t index, uint64_t k,
                                                       simtrace_frame_info *info);

/* What the last failed call on r (or its cursors) found wrong and where
 * ("byte offset 1234, frame 7: payload checksum mismatch"); "" after
 * success.  Owned by r. */
SIMTRACE_API const char *simtrace_reader_message(const simtrace_reader *r);

/* Release the reader; closes a file opened by _path.  Its cursors must
 * be freed first.  NULL is allowed. */
SIMTRACE_API void simtrace_reader_free(simtrace_reader *r);

/* ---- cursors: entries in order, on files and pipes --------------------------- */

/* Which entries a cursor delivers.  Ranges are half-open [lo, hi);
 * hi = UINT64_MAX: to the end. */
typedef enum simtrace_range_kind {
    SIMTRACE_RANGE_ALL = 0,     /* every entry (lo, hi unused) */
    SIMTRACE_RANGE_ENTRIES = 1, /* entry indices lo..hi-1 */
    SIMTRACE_RANGE_CYCLES = 2,  /* entries whose cycle is lo..hi-1 (cycles must
                                   not decrease: SIMTRACE_E_CYCLE_ORDER) */
    SIMTRACE_RANGE_TIME = 3,    /* whole frames written between times lo and hi
                                   (ns since 1970; needs timestamps) */
} simtrace_range_kind;

typedef struct simtrace_range {
    uint32_t kind; /* simtrace_range_kind */
    uint32_t reserved0;
    uint64_t lo, hi;
} simtrace_range;

/*
 * A cursor over one stream of r: the stream named name (NULL: the default
 * stream, see simtrace_reader_find_stream), the entries that range selects
 * (NULL: all).  On a random-access reader it decodes only the frames the
 * range needs, up to params.threads of them at once on worker threads
 * that block every signal; several cursors may be open on one reader (used
 * by one thread at a time).  On a sequential reader the cursor calls read the
 * input, on the caller's thread (the library starts no reading thread;
 * params.threads > 1 decode frames on worker threads that block every
 * signal, so a host's signal handlers run on its own threads); other
 * streams' frames are skipped undecoded; one cursor per sequential reader,
 * and its entries can be read once.  It returns once the first frame of
 * the stream is read, or the input's end.  The default stream read
 * sequentially is the one a file has (simtrace-cat on a pipe reads the
 * same): the first memory stream, even one declared after other frames;
 * when the first stream is not a memory stream, its entries are held back
 * until a memory stream is declared (which replaces it) or the input ends
 * (then it is the stream read); more than 64 MiB of them to hold gives
 * SIMTRACE_E_USAGE: name the stream.
 * Returns SIMTRACE_OK; SIMTRACE_E_NOT_FOUND (no such stream, or none);
 * SIMTRACE_E_USAGE (bad range; a cycle range on a type without cycles;
 * the held stream above);
 * SIMTRACE_E_CYCLE_ORDER, SIMTRACE_E_UNSUPPORTED (random access: the
 * stream's cycles decrease, or it has no ordered times); SIMTRACE_E_STATE
 * (a second cursor on a sequential reader); data and I/O errors;
 * SIMTRACE_E_NOMEM; SIMTRACE_E_THREAD.
 */
SIMTRACE_API simtrace_error simtrace_cursor_open(simtrace_cursor **c, simtrace_reader *r, const char *name,
                                                 const simtrace_range *range);

/* The cursor's stream, copied out (entry_size says how to size buffers). */
SIMTRACE_API simtrace_error simtrace_cursor_stream_info(const simtrace_cursor *c, simtrace_stream_info *info);

/*
 * Copy the next entries, as many whole entries as fit in size bytes, to
 * buf.  *count receives their number (0: the range is exhausted; further
 * calls give 0 again), *first (if not NULL) the index in the stream of the
 * first of them.  Returns SIMTRACE_OK; SIMTRACE_E_BUFFER (size below one
 * entry); SIMTRACE_E_CYCLE_ORDER (a cycle range met a decrease); data and
 * I/O errors (the cursor then stays failed: each call returns the error).
 */
SIMTRACE_API simtrace_error simtrace_cursor_next(simtrace_cursor *c, void *buf, size_t size, uint64_t *count,
                                                 uint64_t *first);

/*
 * The next entries without a copy: *entries points at them, in the
 * cursor's own buffer (a decoded frame), valid until the next call on c
 * or its free; *count receives their number (0: the range is exhausted),
 * *first (if not NULL) the index of the first.  Each call gives what is
 * left of one decoded frame's part of the range, so this reads a range for
 * the work of simtrace-cat.  May be mixed with simtrace_cursor_next.
 * Returns as simtrace_cursor_next (no SIMTRACE_E_BUFFER).
 */
SIMTRACE_API simtrace_error simtrace_cursor_peek(simtrace_cursor *c, const void **entries, uint64_t *count,
                                                 uint64_t *first);

/* Release the cursor.  It returns at once: a sequential reader's input is
 * read only inside the cursor calls, on the caller's thread, so nothing is
 * left waiting on it (its decoder threads, if params.threads > 1, stay
 * until simtrace_reader_free); the reader then takes no other cursor.
 * NULL is allowed. */
SIMTRACE_API void simtrace_cursor_free(simtrace_cursor *c);

/* ============================================================================
 * The advanced tier: what the programs (svpc-compress, svpc-decompress,
 * simtrace-pack, simtrace-cat) need beyond the calls above.  Same rules as
 * the rest of this header (errors, threads, lifetimes, reserved fields);
 * every program is a client of this header only.
 * ========================================================================== */

/* ---- advanced: frames, pulled one at a time ------------------------------- */

/* A decoded data frame of any stream (simtrace_reader_next_frame). */
typedef struct simtrace_frame {
    uint32_t index;       /* its stream (simtrace_reader_stream_info) */
    uint32_t pick;        /* a reader of simtrace_reader_open_seq: the pick
                             rule's word (simtrace_pick) on its stream when it
                             is delivered, which may differ from the word its
                             header got (a held stream replaced since); else 0 */
    uint64_t first_entry; /* the index in the stream of its first entry */
    uint64_t count;       /* its entries; 0 and entries NULL: the end */
    const void *entries;  /* count x the stream's entry_size bytes, in the
                             reader's buffer: valid until the next call on
                             the reader or its free */
    uint64_t seq;         /* its number among its stream's data frames, from
                             0 (simtrace-cat --list --frames numbers them so) */
    uint64_t offset;      /* the byte offset of its frame header in the input */
    uint64_t reserved[2];
} simtrace_frame;

/*
 * The next data frame of a sequential reader, of every stream, in file
 * order, decoded and checked (as a cursor's): the whole input as
 * svpc-decompress reads it.  Like a cursor, it reads the input on the
 * caller's thread and keeps up to params.threads frames decoding on worker
 * threads that block every signal; it is the reader's one way through its
 * input: a reader that opened a cursor gives SIMTRACE_E_STATE here, and
 * the reader takes no cursor after this call.  Streams are declared as
 * their descriptors are read (simtrace_reader_stream_count grows).  At the
 * end of a sound input *f says so (count 0, entries NULL); further calls
 * give the end again.  Returns SIMTRACE_OK; SIMTRACE_E_STATE (a
 * random-access reader, or a cursor was opened); SIMTRACE_E_USAGE (NULL
 * argument); SIMTRACE_E_TRUNCATED (the input ends inside a frame or
 * without directory and footer: every complete frame came before); data
 * and I/O errors (simtrace_reader_message says what and where); each error
 * stays: every later call returns it.  Not thread-safe on one reader.
 */
SIMTRACE_API simtrace_error simtrace_reader_next_frame(simtrace_reader *r, simtrace_frame *f);

/* Where in an input something is: each number UINT64_MAX when not known. */
typedef struct simtrace_input_place {
    uint64_t offset;  /* byte offset in the input (its decompressed bytes
                         when unpacked, except in unpack_where) */
    uint64_t line;    /* 1-based line of a text input */
    char detail[160]; /* what is wrong there, in words; "" if nothing more */
    uint64_t frame;   /* a container's frame: with stream known, a data
                         frame's sequence number in its stream (as
                         simtrace-cat --list --frames numbers it);
                         without, its place among the file's frames, from 0 */
    uint64_t stream;  /* the stream id of that data frame */
} simtrace_input_place;

/*
 * Where the failure of simtrace_reader_next_frame, or of an open kept by
 * simtrace_read_params.keep_failed, is, as numbers (what
 * simtrace_reader_message says in words): the byte offset of the frame,
 * its number and its stream, and the detail; each number UINT64_MAX when
 * not known, everything unknown when nothing failed.  Returns SIMTRACE_OK
 * or SIMTRACE_E_USAGE.  Not thread-safe on one reader.
 */
SIMTRACE_API simtrace_error simtrace_reader_place(const simtrace_reader *r, simtrace_input_place *where);

/* ---- advanced: the sequential reader's options ------------------------------ */

/*
 * A container read in file order as simtrace-cat reads a pipe, --verify,
 * --list and --salvage a file without directory: the caller chooses which
 * data frames are decoded (from their headers, before any decoding), may
 * have every frame checked and none delivered, and may read past damage
 * with a report per damaged frame.  The stream read by default is chosen
 * by the library's one rule (the first memory stream, else the first
 * stream), the rule simtrace_cursor_open applies to a sequential reader.
 */

struct simtrace_damage; /* (advanced: recovery, below) */

/* What the default-stream rule says of a data frame's stream
 * (simtrace_frame_head.pick). */
typedef enum simtrace_pick {
    SIMTRACE_PICK_SKIP = 0, /* not the stream read */
    SIMTRACE_PICK_READ = 1, /* the stream read */
    SIMTRACE_PICK_HOLD = 2, /* the first stream, not a memory stream: the stream
                               read if no memory stream is declared before the
                               end of the input (simtrace_reader_pick_end); a
                               caller holds its entries back until then */
} simtrace_pick;

/* The most bytes of entries a caller need hold back for SIMTRACE_PICK_HOLD,
 * the bound the library's own cursor keeps: beyond it the stream read
 * cannot be chosen in one pass (the caller asks for it by name). */
#define SIMTRACE_SEQ_HOLD_MAX ((size_t)64 << 20)

/* A data frame as its header describes it, before it is decoded. */
typedef struct simtrace_frame_head {
    uint32_t index;       /* its stream (simtrace_reader_stream_info) */
    uint32_t pick;        /* simtrace_pick, for simtrace_seq_params.stream */
    uint32_t dropped;     /* 1: this frame's memory stream replaces the stream
                             held so far (SIMTRACE_PICK_HOLD): what was held
                             of that one is not the stream read */
    uint32_t timed;       /* 1: first_time and last_time are set */
    uint64_t seq;         /* its number among its stream's data frames, from 0 */
    uint64_t offset;      /* byte offset of its header in the input */
    uint64_t size;        /* its bytes, header and payload */
    uint64_t first_entry; /* index in the stream of its first entry */
    uint64_t count;       /* its entries */
    uint64_t first_cycle, last_cycle; /* of its first and last entry
                                         (streams whose entries carry one) */
    uint64_t first_time, last_time;   /* wall-clock times, when timed */
    uint64_t reserved[4];
} simtrace_frame_head;

/* Says whether the data frame h is decoded and delivered (nonzero) or
 * only read and its payload checksum checked (0).  h is valid during the
 * call only. */
typedef int (*simtrace_frame_want_fn)(void *opaque, const simtrace_frame_head *h);

/* Damage met by a sequential read with simtrace_seq_params.resync, beyond
 * SIMTRACE_DAMAGE_FRAME (a frame whose header is sound and whose payload
 * is damaged: its entries are lost, the read goes on). */
typedef enum simtrace_seq_damage_kind {
    SIMTRACE_DAMAGE_GAP = 4,        /* bytes [offset, offset + size) passed over to
                                       the next sound frame header: what they held
                                       is told by the reports that follow; stream
                                       is UINT32_MAX */
    SIMTRACE_DAMAGE_LOST = 5,       /* frames of stream that lay in bytes passed
                                       over, shown by its next frame or the
                                       directory: seq is how many, first_entry
                                       and entries their entries */
    SIMTRACE_DAMAGE_UNDECLARED = 6, /* frames the directory lists of streams whose
                                       declarations were passed over: seq frames,
                                       entries entries; stream is UINT32_MAX */
} simtrace_seq_damage_kind;

typedef struct simtrace_seq_params {
    const char *stream;            /* the stream the pick rule reads; NULL: the
                                      default stream (simtrace_pick); copied */
    simtrace_frame_want_fn want;   /* NULL: every data frame is decoded */
    void *want_opaque;
    int (*damage)(void *opaque, const struct simtrace_damage *d);
                                   /* as simtrace_damage_fn; NULL: damage ends
                                      the read with its error */
    void *damage_opaque;
    uint32_t verify_only;          /* 1: every frame decoded and checked, none
                                      delivered: simtrace_reader_next_frame
                                      gives the end, or the first error */
    uint32_t resync;               /* 1 (with damage): a damaged or misplaced
                                      frame header does not end the read either:
                                      it goes on from the next sound frame
                                      header (SIMTRACE_DAMAGE_GAP, _LOST,
                                      _UNDECLARED) */
    const simtrace_range *range;   /* NULL: whole streams.  Else the frames of
                                      the stream read (or held: pick READ or
                                      HOLD) are cut to it, as a cursor cuts
                                      them, and those it cannot touch are not
                                      decoded (want still sees them); a
                                      decrease of cycles or times ends the read
                                      as a cursor's does; copied */
    uint32_t stream_types;         /* with stream NULL: 0 the default stream;
                                      else the first stream declared whose
                                      type's bit (1u << simtrace_type) is set
                                      here, nothing held back: it is settled
                                      once declared, but the pick state names
                                      it from the next data frame of any
                                      stream on (for a format that writes no
                                      memory entries: see
                                      simtrace_export_accepts).  0 with a
                                      stream name; only bits of types this
                                      release knows */
    uint32_t reserved32;           /* zero */
    uint64_t reserved[4];          /* zero */
} simtrace_seq_params;

/*
 * Open fd (a pipe, or a regular file read in file order, without its
 * directory) as a sequential reader with the options seq, read through
 * simtrace_reader_next_frame; params as for simtrace_reader_open_fd (NULL:
 * the defaults).  want is called for every data frame, and damage for
 * every damaged frame (SIMTRACE_DAMAGE_FRAME, or with resync any kind),
 * from inside simtrace_reader_next_frame, on its thread, one at a time;
 * both may call the calls that take r const, nothing else on r.  A damage
 * callback that returns nonzero ends the read: simtrace_reader_next_frame
 * returns SIMTRACE_E_WRITE.  Takes no cursor (SIMTRACE_E_STATE).
 * Returns as simtrace_reader_open_fd; SIMTRACE_E_USAGE also for nonzero
 * reserved fields, flags above 1, resync without damage, both stream and
 * stream_types, or a bit of stream_types that names no type.
 */
SIMTRACE_API simtrace_error simtrace_reader_open_seq(simtrace_reader **r, int fd, const simtrace_read_params *params,
                                                     const simtrace_seq_params *seq);

/*
 * At the end of the input of a reader opened by simtrace_reader_open_seq:
 * the stream the pick rule reads, its index into *index.  The stream held
 * back (SIMTRACE_PICK_HOLD) becomes it here, as no memory stream came.
 * Returns SIMTRACE_OK with *first_held 1 when it became the stream read in
 * this call (its held entries are now the caller's to write), else 0;
 * SIMTRACE_E_NOT_FOUND (no data frame of the stream, or of any stream,
 * went by); SIMTRACE_E_STATE (not such a reader); SIMTRACE_E_USAGE.
 * Not thread-safe on one reader.
 */
SIMTRACE_API simtrace_error simtrace_reader_pick_end(simtrace_reader *r, uint32_t *index, int *first_held);

/* The pick rule's state now, for a reader of simtrace_reader_open_seq:
 * *read the index of the stream read once it is chosen, else UINT32_MAX;
 * *held the index of the stream held back (SIMTRACE_PICK_HOLD), else
 * UINT32_MAX.  It changes only as want sees frame headers, and may be
 * asked from the want and damage callbacks (a damaged frame's stream: is
 * it the output's?).  Returns SIMTRACE_OK; SIMTRACE_E_STATE (not such a
 * reader); SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_reader_pick_state(const simtrace_reader *r, uint32_t *read, uint32_t *held);

/* The bytes r has read of its input so far into *bytes: a sequential
 * reader's, in file order (at the end: the input's size); a random-access
 * reader's, the footer, directory and stream descriptors (or, without
 * directory, the frame headers) that opening it read.  Returns
 * SIMTRACE_OK; SIMTRACE_E_STATE (an open kept by keep_failed);
 * SIMTRACE_E_USAGE.  Not thread-safe on one reader. */
SIMTRACE_API simtrace_error simtrace_reader_bytes_read(const simtrace_reader *r, uint64_t *bytes);

/* ---- advanced: recovery: salvage, and reading past damage ------------------ */

/*
 * A damaged or cut-off container read for what it still holds, as
 * simtrace-cat --salvage does: random access only (a reader opened on a
 * regular file, whole or read through its frame headers, see
 * simtrace_reader_complete).
 */

/* What a damage report is about. */
typedef enum simtrace_damage_kind {
    SIMTRACE_DAMAGE_FRAME = 0, /* a frame of the stream is damaged: its entries
                                  are lost, the salvage goes on */
    SIMTRACE_DAMAGE_CUT = 1,   /* the stream's frame cut off at the end of a file
                                  without directory: its entries are lost */
    SIMTRACE_DAMAGE_OTHER = 2, /* (simtrace_resume) another stream's frame, passed
                                  over; error is SIMTRACE_OK: the caller's read
                                  found what is wrong with it */
    SIMTRACE_DAMAGE_STOP = 3,  /* a failure that ends the call (simtrace_salvage:
                                  not the frame's own damage: I/O, memory,
                                  params.memlimit; simtrace_resume: any); the
                                  call returns error after this report */
} simtrace_damage_kind;

/* One damaged frame, copied out for the damage callback. */
typedef struct simtrace_damage {
    uint32_t kind;         /* simtrace_damage_kind */
    uint32_t stream;       /* index of the frame's stream in the reader's list */
    uint32_t error;        /* simtrace_error: what is wrong (CUT: SIMTRACE_E_TRUNCATED) */
    uint32_t reserved0;
    uint64_t seq;          /* the frame's number in its stream, as
                              simtrace_reader_frame_info's k (simtrace-cat
                              --list --frames numbers it so) */
    uint64_t offset;       /* byte offset of the frame's header in the file */
    uint64_t first_entry;  /* index in the stream of its first entry */
    uint64_t entries;      /* entries it holds */
    /* Where the check failed, each UINT64_MAX when not known: a byte
     * offset; a frame (with at_stream: its seq in stream id at_stream;
     * without: its position in the file, from 0); a stream id. */
    uint64_t at_offset, at_frame, at_stream;
    const char *detail;    /* what the check found, in words, or "" when not
                              known; valid during the callback only */
    uint64_t size;         /* the frame's bytes (SIMTRACE_DAMAGE_GAP: the bytes
                              passed over); 0 when not known */
    uint64_t reserved[3];
} simtrace_damage;

/* Receives count entries of the stream (raw, as simtrace_cursor_next
 * gives them), the first of them entry `first` of the stream; valid during
 * the call only.  Returns 0, or nonzero to stop the call, which then
 * returns SIMTRACE_E_WRITE (errno as the callback left it). */
typedef int (*simtrace_salvage_fn)(void *opaque, uint64_t first, const void *entries, size_t count);

/* Hears of a damaged frame (d valid during the call only).  Returns 0, or
 * nonzero to stop the call, which then returns SIMTRACE_E_WRITE (the
 * return of a SIMTRACE_DAMAGE_STOP report is not looked at). */
typedef int (*simtrace_damage_fn)(void *opaque, const simtrace_damage *d);

/* What a salvage did. */
typedef struct simtrace_salvage_report {
    uint32_t stream;           /* index of the stream salvaged */
    uint32_t no_directory;     /* 1: the file has no valid directory and footer
                                  and was read through its frame headers: the
                                  losses counted are those the file shows,
                                  what was never written is not known */
    uint64_t entries_salvaged; /* entries delivered */
    uint64_t frames_lost;      /* damaged frames, and the frame cut off */
    uint64_t entries_lost;     /* their entries */
    uint32_t cut_off;          /* 1: the stream's last frame is cut off (counted
                                  in frames_lost): cut_* say which */
    uint32_t reserved0;
    uint64_t cut_offset;       /* byte offset of its header */
    uint64_t cut_first_entry, cut_entries; /* the entries lost in it */
    uint64_t frames_after;     /* with SIMTRACE_E_STATE: the byte offset of the
                                  complete frames after a damaged frame header */
    uint64_t reserved[8];
} simtrace_salvage_report;

/*
 * Salvage the stream named stream (NULL: the default stream, see
 * simtrace_reader_find_stream) of the random-access reader r: every frame
 * is decoded on its own, so damage to one frame, its header included,
 * costs that frame only.  The entries of the intact frames go to
 * entries_fn in stream order; each damaged frame to damage_fn
 * (SIMTRACE_DAMAGE_FRAME) as it is met, in the same order, and the
 * stream's frame cut off at the end of a file without directory last
 * (SIMTRACE_DAMAGE_CUT).  damage_fn may be NULL.  Both are called on the
 * calling thread, one at a time, from inside this call only, and may call
 * the calls that take r const (simtrace_reader_stream_info, _stream_count,
 * _find_stream), nothing else on r.  Every entry
 * delivered is checked against its stored checksum (unless
 * params.ignore_check); params.memlimit applies, and a frame above it
 * stops the salvage (SIMTRACE_DAMAGE_STOP), as it is not damaged.
 * *report (if not NULL) is filled in on SIMTRACE_OK and on every failure
 * after the stream is found, with what was done so far.
 * Returns SIMTRACE_OK, also when frames were lost (report->frames_lost,
 * report->no_directory say what the file lacks); SIMTRACE_E_STATE (a
 * sequential reader; or a file without directory whose scan stopped at a
 * damaged frame header that complete frames follow, from byte offset
 * report->frames_after: the index does not list them, so nothing is
 * delivered; simtrace-cat --salvage reads such a file in file order);
 * SIMTRACE_E_NOT_FOUND (no such stream); SIMTRACE_E_WRITE (a callback
 * returned nonzero); SIMTRACE_E_READ, SIMTRACE_E_NOMEM,
 * SIMTRACE_E_MEMLIMIT (after a SIMTRACE_DAMAGE_STOP report);
 * SIMTRACE_E_USAGE (r or entries_fn NULL).  simtrace_reader_message says
 * what failed.  Thread safety: as every call on r.
 */
SIMTRACE_API simtrace_error simtrace_salvage(simtrace_reader *r, const char *stream, simtrace_salvage_fn entries_fn,
                                             simtrace_damage_fn damage_fn, void *opaque,
                                             simtrace_salvage_report *report);

/*
 * A read of stream index in file order (a sequential reader on the same
 * file, or the caller's own) stopped at byte offset damage_offset with the
 * entries before entry `from` read: the damage there, a frame header the
 * read cannot step over, may be another stream's, and then the stream goes
 * on whole.  When the frame of r's index that holds damage_offset belongs
 * to another stream, damage_fn hears of it first (SIMTRACE_DAMAGE_OTHER:
 * that frame), then entries_fn receives the entries of stream index from
 * `from` to its end, frame by frame through the directory.  A frame of
 * the stream that fails to decode is reported (SIMTRACE_DAMAGE_STOP) and
 * its error returned.  damage_fn may be NULL; callbacks as for
 * simtrace_salvage.
 * Returns SIMTRACE_OK; SIMTRACE_E_NOT_FOUND (no frame holds damage_offset,
 * or stream index's own does: its later entries cannot be vouched for;
 * nothing reported or delivered); SIMTRACE_E_STATE (a sequential reader);
 * SIMTRACE_E_RANGE (no stream index); SIMTRACE_E_WRITE (a callback
 * returned nonzero); data and I/O errors; SIMTRACE_E_USAGE.
 * Thread safety: as every call on r.
 */
SIMTRACE_API simtrace_error simtrace_resume(simtrace_reader *r, uint32_t index, uint64_t from,
                                            uint64_t damage_offset, simtrace_salvage_fn entries_fn,
                                            simtrace_damage_fn damage_fn, void *opaque);

/* Whether a random-access reader found its directory, and else what the
 * scan of its frame headers found, as numbers. */
typedef struct simtrace_recovery_info {
    uint32_t complete;     /* 1: directory and footer read (as
                              simtrace_reader_complete); 0: read through its
                              frame headers */
    uint32_t tail_lost;    /* 1: no frame cut off is known (simtrace_reader_cut_frame
                              finds none, or a whole one), no frames_after, and
                              yet the bytes from tail_offset to the end of the
                              file may have held entries: the file ends inside a data frame's
                              header, or they are no frame (damage, blocks a
                              crash left unwritten).  0: there are none, or
                              they begin a directory frame, or a stream
                              descriptor that the file's end cuts off */
    uint64_t frames, entries; /* complete data frames listed, and their entries,
                                 all streams */
    uint64_t frames_end;   /* byte offset where the listed frames end */
    uint64_t file_size;    /* bytes */
    uint64_t frames_after; /* 0; or the byte offset of complete frames after a
                              damaged frame header, not listed (simtrace_salvage
                              refuses such a file) */
    char reason[160];      /* what is wrong with the directory or footer,
                              NUL-terminated ("" if complete) */
    uint32_t tail_stream;  /* tail_lost: the index (in the reader's list) of
                              the stream that the cut header names; UINT32_MAX
                              when it does not reach its stream field, names
                              no declared stream, or the bytes are no frame
                              header: entries of any stream may be lost */
    uint32_t reserved1;
    uint64_t tail_offset;  /* tail_lost: where those bytes begin: frames_end,
                              or the end of a whole frame cut there
                              (simtrace_cut_frame.whole) */
    uint64_t reserved[4];
} simtrace_recovery_info;

/* Copy r's state of repair to *info.  Decodes and reads nothing.
 * Returns SIMTRACE_OK; SIMTRACE_E_STATE (a sequential reader);
 * SIMTRACE_E_USAGE.  Thread safety: as every call on r. */
SIMTRACE_API simtrace_error simtrace_reader_recovery(simtrace_reader *r, simtrace_recovery_info *info);

/* ---- advanced: the programs' options ----------------------------------------- */

/* Limits of simtrace_write_params, as the programs' -T and --frame-size
 * check them. */
#define SIMTRACE_THREADS_MAX 64u              /* params.threads */
#define SIMTRACE_FRAME_ENTRIES_MAX 16777216u  /* params.frame_entries (2^24) */
/* Bytes of a container's file header: a file of this size or less holds
 * no frame (formats/SIMTRACE.md). */
#define SIMTRACE_FILE_HEADER_SIZE 64u

/* The second stage named name ("lzma", "bzip2", "zlib", "none", as the
 * programs' -s), as a simtrace_stage into *stage.  Returns SIMTRACE_OK, or
 * SIMTRACE_E_USAGE (name NULL or unknown; *stage unchanged).  Thread-safe. */
SIMTRACE_API simtrace_error simtrace_stage_parse(const char *name, uint32_t *stage);

/* Whether an encoder, as the programs' -e names it ("cm2", "cm", "fast",
 * "vpc", ...), has the name name.  Returns SIMTRACE_OK, with *profile (if
 * not NULL) 1 when name may also be simtrace_write_params.profile_name
 * (every encoder but "vpc", which codes legacy VPC pairs only); or
 * SIMTRACE_E_USAGE (name NULL or unknown; *profile unchanged).  Thread-safe. */
SIMTRACE_API simtrace_error simtrace_encoder_check(const char *name, int *profile);

/* The type whose simtrace_type_name is name ("d64", "vpc", "user"...), as
 * the programs' --type names it; SIMTRACE_TYPE_NONE for another name or
 * NULL.  Thread-safe. */
SIMTRACE_API int simtrace_type_parse(const char *name);

/* A writer's counts so far, as the programs' -v prints them. */
typedef struct simtrace_write_stats {
    uint64_t entries;         /* entries appended, all streams (wide values'
                                 blocks included), as simtrace_writer_entries */
    uint64_t entry_bytes;     /* their bytes */
    uint64_t out_bytes;       /* bytes written to the output */
    uint64_t frames;          /* data frames written to the output */
    uint64_t entries_written; /* the entries of those frames: what a reader
                                 finds if the writer stops now */
    uint64_t reserved[5];     /* zero */
} simtrace_write_stats;

/* Copy w's counts to *s.  Returns SIMTRACE_OK or SIMTRACE_E_USAGE.  Valid
 * after a failure and after simtrace_writer_close too.  Not thread-safe on
 * one writer (as every call on w). */
SIMTRACE_API simtrace_error simtrace_writer_stats(const simtrace_writer *w, simtrace_write_stats *s);

/* How stream id of w codes its entries: its type (simtrace_type) into
 * *type, and its encoder's name into *encoder ("cm2", "generic"...; a
 * static string), either pointer NULL if not wanted.  The encoder is the
 * one the stream was created with, whatever the writer's profile: a stream
 * made by simtrace_writer_concat_* has its frames' encoder (and so does a
 * stream of a container that simtrace-pack --append reopens).  Returns SIMTRACE_OK or SIMTRACE_E_USAGE (no stream id).  Not
 * thread-safe on one writer (as every call on w). */
SIMTRACE_API simtrace_error simtrace_writer_stream_coding(const simtrace_writer *w, uint32_t id, int *type,
                                                          const char **encoder);

/* ---- advanced: appending in place ------------------------------------------- */

/*
 * A container written before, continued in place (what simtrace-pack
 * --append does): its streams keep their ids, their encoders and their
 * entry numbering, entries added to them follow their last, and new
 * streams may be added.  From the reopening until the writer ends, the
 * file has no directory: a reader still reads every complete frame,
 * through the frame headers, so a crash loses only what was being added
 * (simtrace_repair gives it its directory back).
 */

/* What a container opened for appending holds, and why it was refused. */
typedef struct simtrace_reopen_report {
    /* As simtrace_reader_recovery says it: complete (directory and footer
     * read), or read through its frame headers (frames, entries, reason);
     * frames_end is where the new frames go (the bytes after it, a
     * directory or a cut-off frame, are replaced), frames_after the byte
     * offset of complete frames after a damaged frame header (0: none),
     * which appending would overwrite: the file is then refused. */
    simtrace_recovery_info found;
    uint32_t refused;   /* 1: complete frames follow damage (found.frames_after):
                           nothing changed (SIMTRACE_E_CORRUPT) */
    uint32_t reserved0;
    simtrace_input_place where; /* of the failure: a damaged file header or
                                   stream descriptor, or the damage that
                                   refused the file (offset found.frames_end);
                                   numbers SIMTRACE_UNKNOWN where not known */
    uint64_t reserved[6];
} simtrace_reopen_report;

/*
 * Examine the container open on fd (a regular file) as
 * simtrace_writer_reopen_fd would, and change nothing: so that a program
 * can say what it holds and refuse early, before it opens its inputs.
 * *rep (NULL: not wanted) is filled on return, failure included.
 * Returns SIMTRACE_OK; SIMTRACE_E_CORRUPT (rep->refused: complete frames
 * follow a damaged one); SIMTRACE_E_USAGE (fd below 0); SIMTRACE_E_SEEK (not a
 * regular file); SIMTRACE_E_BAD_MAGIC, _VERSION, _HEADER_CRC, _TRUNCATED
 * (its file header), _BAD_STREAM, _PAYLOAD_CRC and other data errors of a
 * stream descriptor (rep->where says where); SIMTRACE_E_READ (errno says
 * why); SIMTRACE_E_NOMEM.  Thread-safe for distinct files.
 */
SIMTRACE_API simtrace_error simtrace_reopen_check_fd(int fd, simtrace_reopen_report *rep);

/*
 * Open the container for appending, as simtrace_reopen_check_fd examines
 * it, and make *w a writer that continues it: the old directory and footer
 * (or, in a file without them, the bytes after its last complete frame)
 * are cut off, and up to 64 MiB of them kept for simtrace_writer_end to
 * put back.  params as for simtrace_writer_create_*: the profile codes the
 * new streams, and its second stage and level the entries added to old
 * ones, which keep their own encoder (simtrace_writer_stream_coding says
 * which).  Use w as a created writer, simtrace_writer_take_stream to add
 * entries to a stream by its name, and end it with simtrace_writer_close
 * or simtrace_writer_end.
 *   _path: opens path for reading and writing; closed by simtrace_writer_free;
 *   _fd:   a regular file open for reading and writing; not closed.
 * *rep (NULL: not wanted) is filled on return, failure included.
 * Returns as simtrace_reopen_check_fd (nothing changed), and
 * SIMTRACE_E_USAGE (w NULL, bad params); SIMTRACE_E_READ (_path: cannot
 * open; reading the old end; errno says why); SIMTRACE_E_WRITE (the old end
 * could not be cut off; errno says why); SIMTRACE_E_NOMEM;
 * SIMTRACE_E_THREAD.  On failure *w is NULL.
 * Thread safety: as simtrace_writer_create_*; the file must not be
 * written by anyone else until w is freed.
 */
SIMTRACE_API simtrace_error simtrace_writer_reopen_path(simtrace_writer **w, const char *path,
                                                        const simtrace_write_params *params,
                                                        simtrace_reopen_report *rep);
SIMTRACE_API simtrace_error simtrace_writer_reopen_fd(simtrace_writer **w, int fd, const simtrace_write_params *params,
                                                      simtrace_reopen_report *rep);

/*
 * The stream named name for entries of type `type`, as an import takes
 * one: a stream w holds (a reopened container's, or one added before)
 * must hold that type with that entry size (SIMTRACE_E_BAD_STREAM
 * otherwise); else a stream is added, coded as simtrace_writer_import
 * codes its streams (the profile's encoder where it codes the type, vpc
 * pairs the vpc encoder, memory types as for simtrace_writer_add_stream,
 * the rest generic: unlike
 * simtrace_writer_add_stream, which codes vpc pairs generically).  A user
 * type (SIMTRACE_TYPE_USER) is given by guid, entry_size and type_name as
 * for simtrace_writer_add_user_stream; for other types they are NULL, 0,
 * NULL.  *id receives the stream's number.  simtrace_writer_message says
 * what was wrong.  Returns SIMTRACE_OK; SIMTRACE_E_BAD_STREAM (the stream
 * holds other entries: w stays usable); SIMTRACE_E_USAGE (name or type
 * that cannot be declared); SIMTRACE_E_STATE; SIMTRACE_E_WRITE;
 * SIMTRACE_E_NOMEM; SIMTRACE_E_TOO_LARGE.  Not thread-safe on one writer.
 */
SIMTRACE_API simtrace_error simtrace_writer_take_stream(simtrace_writer *w, const char *name, int type,
                                                        const uint8_t *guid, uint32_t entry_size,
                                                        const char *type_name, uint32_t *id);

/* What became of a writer's output (simtrace_writer_end).  Values never
 * change. */
typedef enum simtrace_end_state {
    SIMTRACE_END_COMPLETE = 0,     /* finished: directory and footer written */
    SIMTRACE_END_KEPT = 1,         /* a reopened container, complete with the
                                      frames this writer wrote whole
                                      (simtrace_writer_stats: entries_written);
                                      the entries after them were dropped */
    SIMTRACE_END_RESTORED = 2,     /* a reopened container, byte for byte as it
                                      was before simtrace_writer_reopen_* */
    SIMTRACE_END_NO_DIRECTORY = 3, /* left without directory, as
                                      simtrace_writer_free leaves a writer not
                                      closed: readable through its frame
                                      headers (simtrace_repair) */
} simtrace_end_state;

/*
 * End w's output, and say in *state (NULL: not wanted) what became of it.
 * finish 1: as simtrace_writer_close, but also after a failed call whose
 * failure was not the output's (a bad input, a stream of another type, a
 * value too large for its format, a read error of an input: what was
 * appended before it is sound); a failure of the output itself (earlier or
 * now) is returned: SIMTRACE_E_WRITE, _NOMEM, _THREAD, _TOO_LARGE.
 * finish 0, or finishing failed: nothing more is written, and a reopened
 * container is kept with the frames this writer wrote whole if there are
 * any (SIMTRACE_END_KEPT), else put back as it was
 * (SIMTRACE_END_RESTORED); a created writer's output, or a container that
 * neither could be done for (a full disk, an old end over 64 MiB), is left
 * without directory.
 * Afterwards w takes only simtrace_writer_stats, _entries, _message and
 * _free.  Returns SIMTRACE_OK (finish 1: complete; finish 0: *state
 * says what was done); the failure of finishing; SIMTRACE_E_WRITE (finish
 * 0: a reopened container could be neither kept nor put back);
 * SIMTRACE_E_STATE (w closed or ended before); SIMTRACE_E_USAGE (w NULL,
 * finish not 0 or 1).  Not thread-safe on one writer.
 */
SIMTRACE_API simtrace_error simtrace_writer_end(simtrace_writer *w, int finish, uint32_t *state);

/* ---- advanced: statistics --------------------------------------------------- */

/*
 * Statistics: what is inside a trace's streams, as simtrace-cat --stats
 * prints it (the program's figures are these).  Per data frame: its
 * sizes and, for the memory types (d64, d32, m64, m32), what the frame's
 * encoder's predictors make of its entries, per field: how often some
 * predictor proposed the true value (a hit: only an id is coded), how
 * often the id the context expected was right, and which ids were used.
 * Per stream: the sums of its frames, distinct cache lines and pages,
 * access sizes, whether it holds reads or writes (by its name), and where
 * its stored bits go (cm2 and cmx frames split by cm2's own coding
 * costs; frames of other encoders counted whole).  Frames of other
 * encoders than cm2 and cmx are shown what cm's predictors make of
 * them.  The figures come from decoding each memory frame and coding its
 * entries again in a counting mode, so they are the codec's by
 * construction; other frames are not decoded.  A cmx frame is coded again
 * with or without the transform, as its payload's first byte says it was
 * written.
 *
 * A statistics handle reads its reader's frames itself; it is used by one
 * thread at a time, together with its reader (no other call on the reader
 * meanwhile), and the reader must outlive it.  On a random-access reader,
 * frames come stream by stream (the reader's order), each stream's in
 * entry order, decoded one at a time; several handles and cursors may be
 * open on one reader.  On a sequential reader the first
 * simtrace_stats_next reads the whole input, in file order, and keeps
 * each frame's figures (about 900 bytes a frame) until they are taken:
 * the reader then takes no cursor (SIMTRACE_E_STATE), and a handle
 * cannot be opened on a sequential reader that has a cursor, or that
 * another handle read.  A handle's memory (its tables, the counted lines
 * and pages: at most 2^23 slots of 8 bytes, the frames kept) comes from
 * malloc, not from the reader's allocator.
 */
typedef struct simtrace_stats simtrace_stats;

#define SIMTRACE_STATS_FIELDS 5u  /* ip, cycle, meta, address, data (simtrace_stats_field_name) */
#define SIMTRACE_STATS_IDS 16u    /* room for a field's predictor ids and its miss id */
#define SIMTRACE_STATS_SIZES 66u  /* access sizes 0..64 bytes; [65]: larger ones */
#define SIMTRACE_STATS_COST_UNIT 65536u /* the bits_* figures count 1/65536 bit */

/* What a stream holds, by its name's last part (after the last '.'):
 * containing "read" or "load": reads; "write" or "store": writes (the
 * importers and bochs-trace name streams CPU.read, CPU.write). */
typedef enum simtrace_stats_kind {
    SIMTRACE_STATS_KIND_NONE = 0,
    SIMTRACE_STATS_KIND_READ = 1,
    SIMTRACE_STATS_KIND_WRITE = 2,
} simtrace_stats_kind;

/* The predictors' figures of some entries, per field f (0..SIMTRACE_STATS_FIELDS-1). */
typedef struct simtrace_stats_pred {
    uint64_t coded[SIMTRACE_STATS_FIELDS];    /* entries that carry the field */
    uint64_t hits[SIMTRACE_STATS_FIELDS];     /* a predictor was right: only its id coded */
    uint64_t expected[SIMTRACE_STATS_FIELDS]; /* the id expected in its context was right */
    /* uses of ids 0..simtrace_stats_field_slots(f); the last is the miss
     * (coded - hits); the ids above are 0 */
    uint64_t ids[SIMTRACE_STATS_FIELDS][SIMTRACE_STATS_IDS];
} simtrace_stats_pred;

/* simtrace_frame_stats.transform.  0 is what a library before these
 * values left there (a reserved word).  Values never change. */
typedef enum simtrace_stats_transform {
    SIMTRACE_STATS_TRANSFORM_NONE = 0, /* another encoder or type, or not known */
    SIMTRACE_STATS_TRANSFORM_ON = 1,   /* coded with the transform */
    SIMTRACE_STATS_TRANSFORM_OFF = 2,  /* coded without it */
} simtrace_stats_transform;

/* One data frame's figures, copied out. */
typedef struct simtrace_frame_stats {
    uint32_t stream;       /* the stream's index in the reader's list */
    uint32_t encoder;      /* the frame's codec id (formats/SIMTRACE.md section 6) */
    uint64_t frame;        /* its position in the stream, 0.. */
    uint64_t first_entry;  /* index in the stream of its first entry */
    uint64_t entries;
    uint64_t stored_bytes; /* header + payload bytes */
    uint32_t fields;       /* bit f: pred holds field f (memory types); 0: no pred figures */
    uint32_t transform;    /* simtrace_stats_transform: for cmx and mix frames of
                              memory types, whether they were coded with the
                              transform of recent data values (formats/SIMTRACE.md
                              6.9.1), as the frame's first payload byte says */
    simtrace_stats_pred pred;
    uint64_t reserved[8];
} simtrace_frame_stats;

/* One stream's figures: the sums of its frames counted so far. */
typedef struct simtrace_stream_stats {
    uint32_t stream;       /* the stream's index in the reader's list */
    uint32_t complete;     /* 1: every frame of the stream is counted: the figures are final */
    uint32_t encoder;      /* the stream's codec id, from its descriptor */
    char encoder_name[16]; /* "cm2", "cm", "paper"...; "?" for an id this library does not know */
    uint32_t kind;         /* simtrace_stats_kind */
    uint32_t fields;       /* bit f: the type carries field f (memory types); 0: none */
    uint64_t entries, frames;
    uint64_t raw_bytes;    /* entries x entry size */
    uint64_t stored_bytes; /* of its data frames, headers included */
    /* memory types: distinct 64-byte cache lines and 4 KiB pages of the
     * addresses.  Counted exactly up to 2^21 each; past that, or when the
     * handle's sets reach their memory budget (2^23 slots: one stream's
     * on a random-access reader, every stream's together on a sequential
     * one), the count is a lower bound and *_exact is 0. */
    uint64_t distinct_lines, distinct_pages;
    uint32_t lines_exact, pages_exact;
    /* d64, d32: accesses of each size (the target's width with fullSize,
     * else the size field), [SIMTRACE_STATS_SIZES - 1] those above 64 */
    uint64_t sizes[SIMTRACE_STATS_SIZES];
    simtrace_stats_pred pred;
    /* Where the stored bits go, in SIMTRACE_STATS_COST_UNIT per bit: they
     * add up to stored_bytes x 8 x the unit exactly.  bits_ids and
     * bits_misses per field, bits_all_flag (one flag: every field after
     * the ip as expected) and bits_rounding (the range coder's flush and
     * rounding) are of the cm2 and cmx frames' payloads; bits_headers is
     * their container bytes around the payloads; bits_other the frames of
     * other encoders, whole (other_frames of them).  payload_bytes: of the
     * cm2 and cmx frames.  All 0 for types other than the memory types. */
    uint64_t bits_ids[SIMTRACE_STATS_FIELDS], bits_misses[SIMTRACE_STATS_FIELDS];
    uint64_t bits_all_flag;
    int64_t bits_headers, bits_rounding, bits_other;
    uint64_t other_frames, payload_bytes;
    /* memory types: the cmx and mix frames coded with the transform of
     * recent data values, and those coded without it (the frames'
     * transform SIMTRACE_STATS_TRANSFORM_ON and _OFF) */
    uint64_t transform_on_frames, transform_off_frames;
    uint64_t reserved[6];
} simtrace_stream_stats;

/*
 * Open statistics of r's stream named stream, or of every stream (stream
 * NULL).  Reads nothing yet.  Returns SIMTRACE_OK; SIMTRACE_E_NOT_FOUND
 * (random access: no stream of that name; a sequential reader says so
 * at its end, from simtrace_stats_next); SIMTRACE_E_STATE (a sequential
 * reader with a cursor, or read by another handle); SIMTRACE_E_USAGE;
 * SIMTRACE_E_NOMEM.  On failure *s is NULL.
 */
SIMTRACE_API simtrace_error simtrace_stats_open(simtrace_stats **s, simtrace_reader *r, const char *stream);

/*
 * The next data frame's figures, to *f: *got receives 1, or 0 at the end
 * (then every chosen stream's figures are final; further calls give 0
 * again).  Random access: decodes that one frame (memory types).
 * Returns SIMTRACE_OK; SIMTRACE_E_NOT_FOUND (sequential: no stream of
 * the name given to simtrace_stats_open in the whole input); data and I/O
 * errors, SIMTRACE_E_NOMEM, SIMTRACE_E_MEMLIMIT (simtrace_stats_message
 * says what and where; the handle then stays failed: each call returns
 * the error); SIMTRACE_E_USAGE.
 */
SIMTRACE_API simtrace_error simtrace_stats_next(simtrace_stats *s, simtrace_frame_stats *f, uint32_t *got);

/*
 * The figures of stream index (in the reader's list) counted so far, to
 * *out; complete says whether they are final.  Valid after a failure too
 * (for the streams finished before it).  Returns SIMTRACE_OK;
 * SIMTRACE_E_RANGE (no such stream, or on a sequential reader not seen
 * so far); SIMTRACE_E_NOT_FOUND (a stream not chosen at
 * simtrace_stats_open); SIMTRACE_E_USAGE.
 */
SIMTRACE_API simtrace_error simtrace_stats_stream(const simtrace_stats *s, uint32_t index, simtrace_stream_stats *out);

/* What the last failed call on s found wrong and where ("byte offset
 * 1234, frame 7, stream 0, payload checksum mismatch"); "" after success.
 * Owned by s, valid until its next call or its free. */
SIMTRACE_API const char *simtrace_stats_message(const simtrace_stats *s);

/* Release s (its reader stays open).  NULL is allowed. */
SIMTRACE_API void simtrace_stats_free(simtrace_stats *s);

/* Field f's name: "ip", "cycle", "meta", "address", "data"; "?" past the
 * last.  Static string.  Thread-safe. */
SIMTRACE_API const char *simtrace_stats_field_name(uint32_t f);

/* Field f's predictor slots: its ids are 0..slots-1 and slots, the miss
 * (the last id simtrace_stats_pred.ids counts); 0 past the last field.
 * Thread-safe. */
SIMTRACE_API uint32_t simtrace_stats_field_slots(uint32_t f);

/* ---- advanced: ranges and merging ------------------------------------------- */

/*
 * What a program needs to read parts of streams through a random-access
 * reader as simtrace-cat does: the entry types' kinds, what a range asks
 * for past a stream's end, the frame a cycle range starts from, the frame
 * cut off at the end of a file without directory, what a cursor decoded,
 * and the wide values of a stream for an exporter.
 *
 * simtrace_reader_place also says where the last failed simtrace_reader_read,
 * simtrace_reader_value, simtrace_values_get or cursor call on the reader
 * found its error (the frame, stream, byte offset and detail its message
 * names); that place stays until a later failure replaces it.
 */

/* 1 for the memory types (d64, d32, m64, m32), else 0.  Thread-safe. */
SIMTRACE_API int simtrace_type_is_memory(int type);
/* 1 for the types whose entries carry a cycle (the memory types, event),
 * else 0.  Thread-safe. */
SIMTRACE_API int simtrace_type_has_cycles(int type);

/*
 * For an entry range (SIMTRACE_RANGE_ENTRIES) over a stream of `entries`
 * entries: 0 when all of it exists (an open end asks for what there is;
 * and 0 for the other kinds, and range NULL); 1 when none of it exists:
 * it starts past the end, or a closed range starts at the end; 2 when it
 * runs past the end: then *from (if not NULL) is the first missing entry
 * and *missing (if not NULL) how many are missing.  Thread-safe.
 */
SIMTRACE_API int simtrace_range_entries_past(const simtrace_range *range, uint64_t entries, uint64_t *from,
                                             uint64_t *missing);

/* For a cycle or time window (SIMTRACE_RANGE_CYCLES, _TIME) over a stream
 * of `frames` data frames whose last cycle (cycles) or last frame time
 * (times) is `last`: 1 when the window starts after it, or the stream has
 * no frames; else 0 (and for the other kinds, and range NULL).
 * Thread-safe. */
SIMTRACE_API int simtrace_range_window_past(const simtrace_range *range, uint64_t frames, uint64_t last);

/*
 * Random access only.  *frame receives the first frame k of stream index
 * (as simtrace_reader_frame_info numbers them) whose last cycle is >=
 * cycle, the stream's frame count if none: where a read of the cycles from
 * `cycle` on starts, frame by frame.  Meaningful when the stream's
 * cycles_ordered is 1.  Decodes nothing.  Returns SIMTRACE_OK;
 * SIMTRACE_E_USAGE (the type has no cycles; frame NULL); SIMTRACE_E_RANGE
 * (no such stream); SIMTRACE_E_STATE (a sequential reader).  Thread
 * safety: as every call on r.
 */
SIMTRACE_API simtrace_error simtrace_reader_find_cycle_frame(simtrace_reader *r, uint32_t index, uint64_t cycle,
                                                             uint64_t *frame);

/* The data frame cut off at the end of a file read through its frame
 * headers (simtrace_reader_complete 0), as its header describes it. */
typedef struct simtrace_cut_frame {
    uint32_t stream;      /* index of its stream in the reader's list;
                             UINT32_MAX: a stream the file does not declare */
    uint32_t has_time;    /* 1: first_time is set */
    uint64_t offset;      /* byte offset of its header */
    uint64_t first_entry; /* index in its stream of its first entry */
    uint64_t entries;     /* the entries it held: lost */
    uint64_t first_cycle; /* of its first entry (a type with cycles) */
    uint64_t first_time;  /* ns since 1970 (has_time) */
    uint64_t whole;       /* 1: all of it is in the file, but its payload fails
                             its checksum (damage, or blocks a crash left
                             unwritten); 0: the file ends inside it */
    uint64_t reserved[3];
} simtrace_cut_frame;

/*
 * Random access only.  Copy the frame cut off at the end of r's file to
 * *cut.  Decodes and reads nothing.  Returns SIMTRACE_OK;
 * SIMTRACE_E_NOT_FOUND (none: the file is complete, or its listed frames
 * end where the file or the damage does); SIMTRACE_E_STATE (a sequential
 * reader); SIMTRACE_E_USAGE.  Thread safety: as every call on r.
 */
SIMTRACE_API simtrace_error simtrace_reader_cut_frame(simtrace_reader *r, simtrace_cut_frame *cut);

/* The header stream index keeps, as its importer found it (a vpc trace's
 * file header, which an exporter of the same format writes back):
 * *header its bytes, owned by r, *len their number (NULL and 0: none).
 * Valid until r reads on (a sequential reader's cursor call) or is freed.
 * Returns SIMTRACE_OK; SIMTRACE_E_RANGE (no such stream; sequential: not
 * declared so far); SIMTRACE_E_USAGE.  Thread safety: as every call on r. */
SIMTRACE_API simtrace_error simtrace_reader_stream_header(const simtrace_reader *r, uint32_t index,
                                                          const void **header, size_t *len);

/* A random-access cursor's count of the frames it decoded so far into
 * *frames (a range decodes only those it needs).  Returns SIMTRACE_OK;
 * SIMTRACE_E_STATE (a cursor of a sequential reader); SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_cursor_frames_decoded(const simtrace_cursor *c, uint64_t *frames);

/*
 * The wide values of stream index (d64, d32) of the random-access reader
 * r, from its vblock companion, for an exporter: simtrace_values_get has
 * the signature of simtrace_export_value_fn, with the handle as opaque.
 * It keeps one decoded frame of the companion, so values asked for in
 * entry order cost one decode per frame.  Used by one thread at a time,
 * with its reader (which must outlive it); its memory comes from malloc.
 * Returns SIMTRACE_OK; SIMTRACE_E_RANGE (no such stream);
 * SIMTRACE_E_STATE (a sequential reader); SIMTRACE_E_USAGE (v or r NULL);
 * SIMTRACE_E_NOMEM.  On failure *v is NULL.
 */
typedef struct simtrace_values simtrace_values;
SIMTRACE_API simtrace_error simtrace_values_open(simtrace_values **v, simtrace_reader *r, uint32_t index);

/* The whole value of wide entry `entry` (v: a simtrace_values): *value its
 * bytes, valid until the next call on v, and *len its length; *value NULL
 * and *len 0 when the stream keeps no wide values.  Returns SIMTRACE_OK;
 * SIMTRACE_E_CORRUPT (the value's blocks are missing or malformed: the
 * reader's message and place say where); data and I/O errors;
 * SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_values_get(void *v, uint64_t entry, const void **value, size_t *len);

/* Release v.  NULL is allowed. */
SIMTRACE_API void simtrace_values_free(simtrace_values *v);

/* ---- advanced: exporting: entries written back as a trace format ----------- */

/*
 * Exporters turn decoded entries back into a trace format (formats/
 * IMPORT.md of the source says how each maps), byte for byte what
 * simtrace-cat -F writes.  simtrace_export_format(0, 1, ...) names the
 * one-stream formats ("raw", "text", "lackey", "din", "vpc", ...),
 * simtrace_export_merge_format those that hold several streams merged by
 * cycle in one file ("lackey", "din", "xdin", "csv", "text", ...); NULL
 * past the last, so a program lists them by counting up until NULL.
 * Static strings.  Thread-safe.
 */
SIMTRACE_API const char *simtrace_export_format(unsigned index);
SIMTRACE_API const char *simtrace_export_merge_format(unsigned index);

/* Whether format `format` (simtrace_export_format or
 * simtrace_export_merge_format) writes text lines: 1 it does (text, csv,
 * lackey, din, xdin, dramsim2, cvp-loads), 0 it writes bytes that are not
 * text (raw, vpc, vpc3, gem5, cvp, cbp2025, drmemtrace, champsim), which
 * a program should not send to a terminal; -1 no such format.
 * Thread-safe. */
SIMTRACE_API int simtrace_export_is_text(const char *format);

/* Whether one-stream format `format` (simtrace_export_format) writes
 * entries of type `type` (simtrace_type): 1 it does, 0 it does not
 * (simtrace_exporter_new returns SIMTRACE_E_UNSUPPORTED for them), -1 no
 * such format.  A program that reads a container for a format that writes
 * no memory entries (cvp, drmemtrace, champsim, vpc) finds the stream to
 * give it with this (simtrace_seq_params.stream_types).  Thread-safe. */
SIMTRACE_API int simtrace_export_accepts(const char *format, uint32_t type);

/* What an exporter needs to know of its stream; the calls that take it
 * copy what they keep (the name, the header). */
typedef struct simtrace_export_stream {
    const char *name;    /* the stream's name, or NULL; lackey, din and xdin
                            take the kind of record from its end
                            (simtrace_export_role) */
    uint32_t type;       /* simtrace_type */
    uint32_t entry_size; /* bytes per entry (the type's; USER: its own) */
    const void *header;  /* the stream's kept header (vpc), or NULL */
    size_t header_len;
} simtrace_export_stream;

/* Receives size bytes of output.  Returns 0, or nonzero on failure: the
 * call being made then fails with SIMTRACE_E_WRITE (errno as the callback
 * left it). */
typedef int (*simtrace_export_write_fn)(void *opaque, const void *buf, size_t size);

/* The whole value of the wide entry `entry` of the stream (d64, d32):
 * *value its bytes, least significant first, valid until the next call;
 * *len its length, which must be the size the entry records, or 0 when
 * no value is kept (text then writes the entry's own fields with "nv").
 * Returns SIMTRACE_OK or an error, which the export call returns. */
typedef simtrace_error (*simtrace_export_value_fn)(void *opaque, uint64_t entry, const void **value, size_t *len);

/* The next entry of stream k of a merge (k < the number of streams):
 * *entry its entry_size bytes, valid until the next call for the same k,
 * or NULL at the stream's end; *index its index in its stream.  Returns
 * SIMTRACE_OK or an error, which the merge returns. */
typedef simtrace_error (*simtrace_export_next_fn)(void *opaque, unsigned k, const void **entry, uint64_t *index);

typedef struct simtrace_exporter simtrace_exporter;

/*
 * Start an exporter of format `format` for stream s, writing through
 * write(wopaque, ...) into a 64 KiB buffer handed on when full and at
 * simtrace_exporter_finish.  value (may be NULL: no values) gives the
 * whole values of wide entries to text.  A format's file header (vpc,
 * vpc3) is written with the first entries or at finish.  An exporter is
 * used by one thread at a time; its callbacks are called on that thread,
 * inside the calls on it.  Returns SIMTRACE_OK; SIMTRACE_E_USAGE (an
 * unknown format or type, an entry size not the type's, a NULL argument);
 * SIMTRACE_E_UNSUPPORTED (the format cannot hold this type, e.g. vpc from
 * d64); SIMTRACE_E_NOMEM.  On failure *x is NULL.
 */
SIMTRACE_API simtrace_error simtrace_exporter_new(simtrace_exporter **x, const char *format,
                                                  const simtrace_export_stream *s, simtrace_export_write_fn write,
                                                  void *wopaque, simtrace_export_value_fn value, void *vopaque);

/* Export count entries (count x entry_size bytes) whose first is entry
 * `first` of the stream; calls come in increasing entry order, with gaps
 * allowed (a range).  count 0 writes nothing but the format's headers.
 * Returns SIMTRACE_OK, SIMTRACE_E_WRITE, the value callback's error,
 * SIMTRACE_E_CORRUPT (a value whose length is not the entry's size),
 * SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_exporter_write(simtrace_exporter *x, uint64_t first, const void *entries,
                                                    size_t count);

/* Hand on what the buffer holds (and a header not written yet).  Returns
 * SIMTRACE_OK, SIMTRACE_E_WRITE, SIMTRACE_E_USAGE. */
SIMTRACE_API simtrace_error simtrace_exporter_finish(simtrace_exporter *x);

/* After simtrace_exporter_write refused an entry that no record of the
 * format gives (SIMTRACE_E_CORRUPT: a CBP-2025 call written as CVP-1, for
 * one): which entry, and why, as a sentence; "" when none was refused.
 * Owned by x, valid until its next call.  NULL x gives "". */
SIMTRACE_API const char *simtrace_exporter_message(const simtrace_exporter *x);

/* Release x; what finish did not hand on is dropped.  NULL is allowed. */
SIMTRACE_API void simtrace_exporter_free(simtrace_exporter *x);

/* The kind of record lackey, din and xdin write for the entries of the
 * stream named name: 'I' (instruction fetch: a name ending in "fetch"),
 * 'S' (store: ending in "write") or 'L' (load: any other).  Thread-safe. */
SIMTRACE_API char simtrace_export_role(const char *name);

/*
 * Write the k streams s[0..k-1] as one file of merge format `format`,
 * their entries merged by cycle (IMPORT.md 8.6), pulled through
 * next(nopaque, ...), one held per stream; written through write as
 * simtrace_exporter_new's.  value[K](vopaque[K], ...) gives the values of
 * stream K (value, or value[K], NULL: none).  Runs on the calling thread.
 * Returns SIMTRACE_OK; SIMTRACE_E_USAGE (not a merge format, k == 0);
 * SIMTRACE_E_UNSUPPORTED (a stream the format cannot hold: memory streams,
 * and for text events too); SIMTRACE_E_TOO_LARGE (text: more than 16
 * streams); SIMTRACE_E_NOMEM; next's, value's or write's error.
 */
SIMTRACE_API simtrace_error simtrace_export_merged(const char *format, const simtrace_export_stream *s, unsigned k,
                                                   simtrace_export_next_fn next, void *nopaque,
                                                   const simtrace_export_value_fn *value, void *const *vopaque,
                                                   simtrace_export_write_fn write, void *wopaque);

/* ---- advanced: packing: imports, concatenation, repair ---------------------- */
/* imports */

/*
 * The importers: how other trace formats become streams of a writer
 * (formats/IMPORT.md of the source says how each maps).  The names are
 * "bochs", "lackey", "din", "xdin", "pinatrace", "text", "vpc", "vpc3",
 * "dramsim2", "gem5", "pixie32", "pixie64", "cvp", "cbp2025", "drmemtrace";
 * index 0, 1, ... gives them in that order, NULL past the last, so a
 * program lists them by counting up until NULL.  *is_text (if not NULL)
 * receives 1 for the formats of text lines (all but vpc, vpc3, gem5,
 * pixie32, pixie64, cvp, cbp2025 and drmemtrace).  A drmemtrace zip
 * archive is read with pread: fd must be a regular file.
 * Static strings.  Thread-safe.
 */
SIMTRACE_API const char *simtrace_import_format(unsigned index, int *is_text);

typedef struct simtrace_import_params {
    const char *prefix;     /* simtrace_writer_import: NULL, or "NAME": the
                               streams are named "NAME.cpu0.read"... instead
                               of "cpu0.read"... */
    uint32_t skip_bad;      /* 1: count malformed lines, tell warn, go on;
                               0: stop at the first (SIMTRACE_E_SYNTAX) */
    uint32_t split_cr3;     /* bochs: linear accesses in streams per address
                               space (IMPORT.md 13) */
    uint32_t no_unpack;     /* 1: take the input as it is even if it begins
                               like xz, gzip or zstd data; 0: read such an
                               input decompressed (by a thread, memory
                               bounded at 1 GiB of decoder) */
    uint32_t reserved0;
    /* The caller's stop request (NULL: none): nonzero once a signal asked
     * to finish.  The caller's handler also makes the descriptor that
     * reading() named read as at its end (dup2 of /dev/null onto it), so
     * a read that waits for a pipe returns; a text line cut off there is
     * then dropped, and damage is not looked for in the rest of a
     * compressed input (whose upstream may never end). */
    const volatile sig_atomic_t *stop;
    /* Optional callbacks, on the calling thread, with opaque:
     *   warn:     a malformed line skipped (skip_bad), error
     *             SIMTRACE_E_SYNTAX, where says which; also, as it
     *             happens, why simtrace_writer_import could not take a
     *             stream or a wide value (SIMTRACE_E_BAD_STREAM,
     *             _TOO_LARGE..., where->detail; without warn,
     *             rep->where.detail says it);
     *   progress: after each read of input;
     *   reading:  fd is the descriptor the call reads from now (the input
     *             itself, or the read end of the decompressor's pipe),
     *             told before the first read; -1 once the reading ended;
     *   taken:    simtrace_writer_import took stream id, named name (valid
     *             during the callback), for the entries that follow:
     *             created, or held already. */
    void (*warn)(void *opaque, int error, const simtrace_input_place *where);
    void (*progress)(void *opaque);
    void (*reading)(void *opaque, int fd);
    void (*taken)(void *opaque, uint32_t id, const char *name);
    void *opaque;
    uint64_t reserved[3];   /* zero */
} simtrace_import_params;

/* Fill p with the defaults (no prefix, stop at the first bad line,
 * unpack, no callbacks).  Thread-safe. */
SIMTRACE_API void simtrace_import_params_init(simtrace_import_params *p);

/* What an import or a raw append did; filled in on success and failure. */
typedef struct simtrace_import_report {
    uint64_t bytes;         /* input bytes read (decompressed) */
    uint64_t lines;         /* lines read (text formats) */
    uint64_t entries;       /* entries appended, all streams */
    uint64_t bad_lines;     /* malformed lines skipped (skip_bad) */
    uint64_t dropped;       /* valid records without an entry (lackey "SB",
                               din labels 3 and 4, xdin m, c, v) */
    uint64_t partial_bytes; /* SIMTRACE_E_PARTIAL_ENTRY: trailing bytes
                               dropped, from where.offset on */
    char unpacked[8];       /* "xz", "gzip", "zstd": the input was read
                               decompressed; "" otherwise */
    uint32_t unpack_error;  /* the decompressor's result: SIMTRACE_OK, or
                               SIMTRACE_E_CORRUPT, _TRUNCATED (damaged or
                               cut compressed data), _MEMLIMIT, _READ */
    uint32_t usable;        /* 1: the writer takes more after this call (it
                               succeeded, or the input was bad: a partial
                               entry, a line, a cycle, damaged compressed
                               data); 0: only simtrace_writer_free */
    uint32_t read_error;    /* the reading's own result, before the
                               unpacking's: what the entries' reader made
                               of the input (with damaged compressed data,
                               often an early end) */
    uint32_t reserved0;
    simtrace_input_place where;        /* of the call's failure */
    simtrace_input_place unpack_where; /* of unpack_error (offset: in the
                                          compressed input) */
    uint64_t reserved[4];
} simtrace_import_report;

/*
 * Append the raw entries read from descriptor fd, up to its end, to stream
 * id (the entries' layout as simtrace_writer_write takes them), reading
 * straight into the frame being filled.  fd is not closed and is read from
 * where it is.  params NULL: the defaults; prefix, skip_bad and split_cr3
 * are not used.  rep may be NULL.
 * Every whole entry read is appended, also when the call fails.
 * Returns SIMTRACE_OK; SIMTRACE_E_PARTIAL_ENTRY (the input ends inside an
 * entry: rep->partial_bytes are dropped, from byte rep->where.offset);
 * the unpacking's rep->unpack_error when the compressed input is damaged
 * or cut, unless writing failed (SIMTRACE_E_WRITE): the damage explains
 * what the reading found (rep->read_error, at rep->where);
 * SIMTRACE_E_READ (reading fd failed: errno and rep->where say why and
 * where; also from the first look at the input); SIMTRACE_E_CYCLE_ORDER
 * (check_cycles); SIMTRACE_E_STATE; SIMTRACE_E_USAGE (no stream id, fd
 * below 0); SIMTRACE_E_WRITE; SIMTRACE_E_NOMEM; SIMTRACE_E_THREAD;
 * SIMTRACE_E_TOO_LARGE.  rep->usable says whether the writer takes more
 * (after a failure of the writer, or of reading, it takes only
 * simtrace_writer_free).
 * Thread safety and lifetimes as for simtrace_writer_write: one thread at
 * a time per writer; the library's decompressing thread reads fd while
 * the call runs and has ended when it returns; params and its callbacks
 * are used only during the call.
 */
SIMTRACE_API simtrace_error simtrace_writer_append_fd(simtrace_writer *w, uint32_t id, int fd,
                                                      const simtrace_import_params *params,
                                                      simtrace_import_report *rep);

/*
 * Import fd, a trace of format `format` (simtrace_import_format), into w:
 * the importer declares its streams ("read", "write", "fetch",
 * "cpu0.read"..., with params->prefix before them) in the order their
 * first entry appears; a stream of that name that w holds already (an
 * earlier import) receives the entries if its type is the same
 * (SIMTRACE_E_BAD_STREAM otherwise), and wide values' blocks are renumbered
 * to the entries it held.  New streams take the writer's encoder where it
 * codes their type (vpc pairs: the vpc encoder; memory types as for
 * simtrace_writer_add_stream), else generic.  fd is read
 * once, in constant memory (a pipe is fine), decompressed as for
 * simtrace_writer_append_fd, and not closed.  params NULL: the defaults;
 * rep may be NULL.  Everything complete before a failure is appended.
 * Returns SIMTRACE_OK; SIMTRACE_E_USAGE (unknown format); SIMTRACE_E_SYNTAX
 * (a malformed line: rep->where has its line, offset and what is wrong);
 * SIMTRACE_E_NOT_FORMAT; SIMTRACE_E_TOO_LARGE (a value or cycle beyond the
 * format's limits); SIMTRACE_E_PARTIAL_ENTRY (vpc, vpc3, gem5, pixie32,
 * pixie64, cvp, cbp2025, drmemtrace ending mid-record); SIMTRACE_E_CORRUPT
 * (a damaged drmemtrace zip); SIMTRACE_E_CYCLE_ORDER (check_cycles: rep->where.line is
 * the refused entry's line where the format knows it);
 * SIMTRACE_E_BAD_STREAM; the unpacking's error as for
 * simtrace_writer_append_fd; SIMTRACE_E_READ; SIMTRACE_E_WRITE;
 * SIMTRACE_E_STATE; SIMTRACE_E_NOMEM; SIMTRACE_E_THREAD.  The writer's
 * message says the same in words; rep->usable whether the writer takes
 * more (a bad input leaves it usable: the trace can be closed with
 * everything before the bad part).  Threads and lifetimes as for
 * simtrace_writer_append_fd; format is read during the call only.
 */
SIMTRACE_API simtrace_error simtrace_writer_import(simtrace_writer *w, int fd, const char *format,
                                                   const simtrace_import_params *params,
                                                   simtrace_import_report *rep);
/* concatenation and repair */

/*
 * Concatenation: every stream of a container appended to a writer by
 * copying its frames as they are, without decoding or encoding them (what
 * simtrace-pack --concat does).  An input stream joins the writer's stream
 * of the same name, which must have the same type, entry size and encoder
 * (SIMTRACE_E_BAD_STREAM otherwise); streams of new names are added, with
 * their type, encoder and stream header.  Wide values' block streams
 * (vblock) follow their owner: their blocks name owner entries counted
 * from the input's first, so where the owner already held entries the
 * blocks' frames are decoded, renumbered and encoded again (the profile's
 * second stage); every other frame is copied byte for byte.  Streams
 * without frames are added too.  Frames are checked as they are read
 * (header, sequence, payload checksum), not decoded: damage inside an
 * encoder's data is copied as it is, and found by a later read.
 */
typedef struct simtrace_concat_params {
    uint32_t threads;   /* threads checking the input's frames, 1..64; 0: 1 */
    uint32_t reserved0;
    /* Optional (NULL: none): called on the calling thread after each data
     * frame is read, before it is copied (for a progress display; it may
     * call simtrace_writer_entries on the writer, nothing else on it). */
    void (*progress)(void *opaque);
    void *progress_opaque;
    uint64_t reserved[6]; /* zero */
} simtrace_concat_params;

/* Fill p with the defaults (1 thread, no progress callback).  Thread-safe. */
SIMTRACE_API void simtrace_concat_params_init(simtrace_concat_params *p);

/* What a concatenation copied, and where it stopped. */
typedef struct simtrace_concat_report {
    uint64_t frames;         /* data frames copied from the input */
    uint64_t entries;        /* entries they hold */
    uint64_t renumbered;     /* of them, block frames decoded and encoded again */
    uint32_t streams;        /* streams the input declared */
    uint32_t reserved0;
    /* On failure: where, as far as known (SIMTRACE_UNKNOWN otherwise):
     * the input's byte offset, the frame (with at_stream: its number in
     * that stream; without: its ordinal in the input, from 0), the stream
     * id in the input; detail says what, in words ("" if only the error
     * value says it). */
    uint64_t at_offset, at_frame, at_stream;
    char detail[160];
    uint64_t reserved[8];
} simtrace_concat_report;

/* A place or count not known (simtrace_concat_report, _repair_report). */
#define SIMTRACE_UNKNOWN UINT64_MAX

/*
 * Append the container read from the input to w, as above.  The input is
 * read once, sequentially, to its end, and checked as simtrace-cat
 * --verify checks it, except the entries' encoding:
 *   _path: a file, opened and closed here;
 *   _fd:   any descriptor open for reading (a file, a pipe), read from its
 *          current offset; not closed;
 *   _io:   the read callback (simtrace_read_io), called on this thread.
 * params NULL: the defaults.  *rep (NULL: not wanted) is filled on return,
 * failure included.  w must not be closed; the call may be repeated with
 * other inputs, and entries written to w between them.
 * Returns SIMTRACE_OK; SIMTRACE_E_USAGE (bad params, w NULL);
 * SIMTRACE_E_STATE (w closed or failed); data errors of the input
 * (SIMTRACE_E_BAD_MAGIC, _TRUNCATED when it ends early, _PAYLOAD_CRC...):
 * the frames before the bad one are in w, which stays usable and closes
 * into a valid trace of them; SIMTRACE_E_CYCLE_ORDER (w's params
 * .check_cycles: a frame's cycles go below its stream's last, which
 * rep->detail says: the frames before it are in w, which stays usable); SIMTRACE_E_BAD_STREAM (a stream
 * of the same name but another type, size or encoder; the input's frames
 * before it are in w, which stays usable); SIMTRACE_E_TOO_LARGE (an
 * owner entry past 48 bits, or a format limit of w); SIMTRACE_E_READ (the
 * input: after _path and _fd errno holds the system's reason);
 * SIMTRACE_E_WRITE, SIMTRACE_E_NOMEM, SIMTRACE_E_THREAD (w then accepts
 * only simtrace_writer_free).  simtrace_writer_message(w) says what and
 * where after a failure.  Uses w as any call on it does (one thread at a
 * time); the input's streams and frames are not kept after the call.
 */
SIMTRACE_API simtrace_error simtrace_writer_concat_path(simtrace_writer *w, const char *path,
                                                        const simtrace_concat_params *params,
                                                        simtrace_concat_report *rep);
SIMTRACE_API simtrace_error simtrace_writer_concat_fd(simtrace_writer *w, int fd, const simtrace_concat_params *params,
                                                      simtrace_concat_report *rep);
SIMTRACE_API simtrace_error simtrace_writer_concat_io(simtrace_writer *w, const simtrace_read_io *io,
                                                      const simtrace_concat_params *params,
                                                      simtrace_concat_report *rep);

/*
 * Repair: the directory and footer of a container that has none, or whose
 * end is damaged (a file cut off by a crash or a full disk, a writer never
 * closed, an append that did not finish), rebuilt from its frame headers
 * (what simtrace-pack --repair does).  The frames kept are the complete
 * ones from the start up to the first that is cut off or damaged; the
 * bytes after them hold no entry that the frames before them do not.
 * Complete frames that follow a damaged one cannot be listed (their
 * sequence numbers would not follow): a repair in place refuses, since it
 * would cut them off; a repair into a new file leaves them out and says
 * where they are (simtrace-cat --salvage reads their entries).
 */
typedef struct simtrace_repair_params {
    uint32_t check_only; /* 1: examine the file and fill the report (complete,
                            frames, entries, frames_end, lost_bytes,
                            frames_after); write and change nothing */
    uint32_t reserved0;
    uint64_t reserved[7]; /* zero */
} simtrace_repair_params;

/* Fill p with the defaults (a repair, not only a check).  Thread-safe. */
SIMTRACE_API void simtrace_repair_params_init(simtrace_repair_params *p);

/* What a repair found and did. */
typedef struct simtrace_repair_report {
    uint32_t complete;    /* 1: its directory and footer are valid: nothing to
                             repair (into a new file it is copied as it is) */
    uint32_t refused;     /* 1: in place, and complete frames follow damage:
                             nothing changed (SIMTRACE_E_CORRUPT) */
    uint32_t written;     /* 1: a directory and footer were written (in place,
                             or to the new file) */
    uint32_t restored;    /* 1: an in-place repair could not write its end (a
                             full disk) and put the file back as it was */
    uint32_t output_failed; /* 1: the failure was writing (in place: the file;
                               else the new file), not reading the input */
    uint32_t reserved0;
    uint64_t frames;      /* frames (stream descriptors and data frames) kept */
    uint64_t entries;     /* entries of all streams in them */
    uint64_t file_size;   /* bytes of the input */
    uint64_t frames_end;  /* byte offset where the frames kept end: the new
                             directory's place (complete: the directory's) */
    uint64_t lost_bytes;  /* bytes from frames_end to the end of the input,
                             which the repair drops (0 when complete) */
    uint64_t frames_after;/* byte offset of the first complete frame past the
                             damage at frames_end; 0 if none */
    /* On a failure reading the input: where, as simtrace_concat_report's
     * (SIMTRACE_UNKNOWN otherwise) */
    uint64_t at_offset, at_frame, at_stream;
    char detail[160];
    uint64_t reserved[8];
} simtrace_repair_report;

/*
 * Repair the container at path, in place (out_path NULL: the bytes after
 * the frames kept are cut off and the directory and footer written there,
 * then the file is fsynced) or into out_path (path is not changed): the
 * new file is written beside out_path under a temporary name
 * (out_path.tmpPID.N, mode 0666 less the umask), fsynced and renamed over
 * out_path only when complete, so that a failure (a full disk included)
 * leaves whatever was at out_path as it was and no temporary file; an
 * out_path that exists and is not a regular file (a FIFO, a device) is
 * written directly.  A complete container is left alone in place, and copied as it
 * is into out_path.  params NULL: the defaults.  *rep (NULL: not wanted)
 * is filled on return, failure included.
 * Returns SIMTRACE_OK (rep->frames_after > 0 into a new file: it is a
 * valid container, but complete frames past the damage were left out);
 * SIMTRACE_E_CORRUPT (in place with frames after the damage: refused,
 * rep->refused, nothing changed); SIMTRACE_E_USAGE (path NULL, out_path
 * the same file as path); SIMTRACE_E_SEEK (not a regular file);
 * SIMTRACE_E_BAD_MAGIC, _VERSION, _HEADER_CRC, _TRUNCATED (file header),
 * _BAD_STREAM and other data errors of what cannot be repaired (a file
 * header or a stream descriptor); SIMTRACE_E_READ; SIMTRACE_E_WRITE (in
 * place, rep->restored says whether the file is as it was);
 * SIMTRACE_E_NOMEM.  After _READ and _WRITE errno holds the system's
 * reason.  Thread-safe for distinct files.
 */
SIMTRACE_API simtrace_error simtrace_repair(const char *path, const char *out_path,
                                            const simtrace_repair_params *params, simtrace_repair_report *rep);

/*
 * The same on descriptors the caller opened and closes: fd is the
 * container (a regular file; open for reading and writing to repair in
 * place), out_fd the new file (open for writing, empty: the frames kept
 * are written from its start), or -1 to repair in place.  Nothing is
 * fsynced or closed here.  With params.check_only, out_fd is not used.
 * Returns as simtrace_repair.
 */
SIMTRACE_API simtrace_error simtrace_repair_fd(int fd, int out_fd, const simtrace_repair_params *params,
                                               simtrace_repair_report *rep);

#ifdef __cplusplus
}
#endif

#endif /* SIMTRACE_PUBLIC_H */

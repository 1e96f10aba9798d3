/*
 * cli_util.h - what the command-line programs share: messages in one form,
 * exit codes, safe output files, progress.  Only main() exits.
 */
#ifndef CLI_UTIL_H
#define CLI_UTIL_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "../include/simtrace.h"

#define EXIT_OK 0
#define EXIT_DATA 1  /* bad data, I/O failure */
#define EXIT_USAGE 2 /* bad usage */

/* the programs are the library's release */
#define SVPC_VERSION SIMTRACE_VERSION_STRING

extern const char *cli_prog;

/*
 * The first call of every main(): a descriptor among 0, 1 and 2 that was
 * closed when the program started is opened on /dev/null, as xz does, so
 * that no file opened later (the temporary output of -o) takes its number
 * and receives messages or is read as input.  Standard input is opened for
 * writing and the others for reading, so a read of a closed stdin or a
 * write to a closed stdout still fails (EBADF) wherever it happens; a closed
 * stderr just silences messages.  cli_in_open() and cli_out_open() refuse a
 * closed stdin or stdout at once (cli_std_closed).  Sets cli_prog to prog,
 * and ignores SIGXFSZ, so that a file-size limit is a write error.
 * Returns EXIT_OK, or EXIT_DATA when /dev/null cannot be put in place.
 */
int cli_std_fds(const char *prog);
/* 1 when descriptor fd (0..2) was closed at start (cli_std_fds). */
int cli_std_closed(int fd);

/* "prog: message" on stderr. */
void cli_msg(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Report a simtrace_error at where (NULL: nothing known):
 * "prog: FILE: line L, frame F of stream S at byte offset O: what: detail".
 * Adds strerror(errno) to I/O errors.  Returns the exit status for e. */
int cli_report_place(int e, const simtrace_input_place *where, const char *file);

/* *where: nothing known but detail (every number UINT64_MAX). */
void cli_place(simtrace_input_place *where, const char *detail);

/* Exit status of a simtrace_error. */
int cli_status(int e);

/* Parse the n bytes at s as an unsigned number: decimal with an optional
 * k, M or G suffix (binary: 1k = 1024), or hexadecimal with 0x; never octal
 * (010 is ten).  The one parser of counts, sizes, entry indices and cycles.
 * Returns 1 on success. */
int cli_parse_number(const char *s, size_t n, uint64_t *out);
/* The same for a whole string. */
int cli_parse_size(const char *s, uint64_t *out);

/* After getopt_long returned '?' (with opterr = 0): say which option was
 * unknown or lacks its argument. */
void cli_bad_option(char **argv, int optopt_value);

/*
 * Values of the options the programs share.  Each parses arg into *out and
 * returns 1, or says what the option accepts and returns 0 (the caller
 * then exits with EXIT_USAGE).
 *   threads: 0 (= all CPUs) .. ST_MAX_THREADS;  frame size: 1 .. 2^24 entries;
 *   memlimit: bytes > 0;  sizes take k, M, G suffixes.
 */
int cli_opt_threads(const char *arg, unsigned *out);
int cli_opt_frame_size(const char *arg, uint32_t *out);
int cli_opt_memlimit(const char *arg, uint64_t *out);
/* -s as a simtrace_stage (simtrace_write_params.stage). */
int cli_opt_stage(const char *arg, uint32_t *out);
/* -e: an encoder's name (simtrace_encoder_check); *profile is 1 when it
 * may name a writer's profile (all but vpc). */
int cli_opt_encoder(const char *arg, int *profile);
/* An -o file name: not empty (an empty name was found out only when the
 * finished output could not be renamed into place). */
int cli_opt_output(const char *arg);
/* A stream name: 1..255 bytes. */
int cli_opt_stream_name(const char *arg);

/* The -v progress line of a writer started at t0 (cli_now()): the share of
 * the input read (cli_stop_input), MB/s and time left when it is a regular
 * file, entries and bytes out; final ends the line with the totals and the
 * ratio.  From the counts: entries and their bytes written so far, bytes
 * out (simtrace_writer_entries). */
void cli_progress_counts(uint64_t entries, uint64_t raw_bytes, uint64_t out_bytes, double t0, int final);

/* 1, and *last set to now, when more than a second has passed since *last
 * (a cli_now() time): how -v spaces its progress lines. */
int cli_progress_due(double *last);

/* The whole of svpc-decompress (cli_decompress.c): svpc-compress -d runs it
 * too.  prog is the name its messages start with, cmd the command its help
 * and hints name ("svpc-compress -d").  Returns the exit status. */
int cli_decompress_main(int argc, char **argv, const char *prog, const char *cmd);

/* The last lines of the help of svpc-compress and svpc-decompress: -k, -v,
 * -q, -h, -V and the exit statuses. */
extern const char cli_usage_tail[];

/* After --help or --version: flush and close standard output and say so
 * when that fails (a full disk, a closed stdout), as GNU programs do: a
 * help that was not written is not a success.  Returns the exit status. */
int cli_stdout_done(void);

/* Number of online CPUs (>= 1). */
unsigned cli_ncpu(void);

/*
 * Output.  With a path, data goes to a temporary file beside it which
 * cli_out_commit() closes (a failing close fails the run) and renames into
 * place; cli_out_abort() (also run on SIGINT,
 * SIGTERM, SIGHUP before cli_stop_arm) removes it, so a failed run leaves
 * no output file and no half-written one under the final name; the one
 * exception is a container writer stopped at once by a second signal,
 * whose finished frames stay (cli_stop_arm).
 * The temporary name is path's with a suffix, its file name part cut
 * short to fit the directory's limit (NAME_MAX).  Without a path: stdout,
 * refused when it is a terminal unless force.
 * The output may not be the input file (in_fd) itself.
 * Returns an exit status (EXIT_OK on success) after printing the reason.
 */
int cli_out_open(const char *path, int force, int binary, int in_fd, int *fd);
int cli_out_commit(void);
void cli_out_abort(void);

/*
 * Interrupted means finished (programs that write a container).  After
 * cli_stop_arm(), the first SIGINT, SIGTERM or SIGHUP ends the input named
 * by cli_stop_input() (its descriptor then reads as at its end, even in a
 * read that is waiting for a pipe), so the program finishes its container
 * with every entry read so far; cli_stopped() gives the signal (0: none)
 * and cli_stop_status() the exit status 128 + signal.  A second signal
 * stops the program at once, and the finished frames stay: the -o file,
 * without the container's end, is renamed into place (or kept under its
 * temporary name), which a message says (--repair completes it).  The
 * same signal again from the process that sent the first, within a second,
 * is the same request (GNU timeout signals the program, then its process
 * group).  Library threads never take these signals (st_thread_create, common/st_io.c).
 */
void cli_stop_arm(void);
void cli_stop_input(int fd); /* -1: none; also the input -v measures */
int cli_stopped(void);
/* The stop request as the importers take it (simtrace_import_params.stop):
 * nonzero from the first signal on. */
const volatile sig_atomic_t *cli_stop_flag(void);
int cli_stop_status(void);
const char *cli_stop_name(void); /* "SIGINT", ... */

/* Open the input: path or "-"/NULL for stdin.  Returns exit status. */
int cli_in_open(const char *path, int *fd, const char **display_name);
/* cli_in_open for a container: standard input that is a terminal is
 * refused (EXIT_USAGE, said), as xz -d refuses it. */
int cli_container_in_open(const char *path, int *fd, const char **name);

/* A container opened by scanning its frame headers, said on stderr from
 * ri (not complete): why the directory or footer is not valid; the
 * complete data frames found and their entries (readable); where they end
 * (the bytes after are lost); where complete frames follow a damaged one,
 * if they do; and what rebuilds the end.  pipe: the container came down a
 * pipe (copied to a temporary file), so it ended early and there is no
 * file to repair. */
void cli_say_recovered(const char *file, const simtrace_recovery_info *ri, int pipe);

/* After stream si (named name) of r was read, r opened by scanning its
 * frame headers (simtrace_recovery_info): 1 when entries range rg asks
 * for may be missing, said on stderr naming file: the frame
 * cut off or damaged at the end when it is si's, and the bytes after the
 * last frame when they may have held si's entries; 1 alone when complete
 * frames follow a damaged one, which the caller has said (cli_note_reader).
 * One test for the one-stream export and for each stream a merge reads. */
int cli_say_stream_loss(simtrace_reader *r, const char *file, uint32_t si, const char *name,
                        const simtrace_range *rg);

/* Say that the count entries from first_entry of stream `stream` in file,
 * in the frame cut off at its end (its header at byte offset offset), are
 * lost; whole: the frame is all there, but fails its payload checksum. */
void cli_say_cut_loss(const char *file, uint64_t first_entry, uint64_t count, uint64_t offset, const char *stream,
                      int whole);

/* -e NAMED (wp->profile_name, what the program made of it) and entries of
 * type `type`: when the writer would code them with another encoder than
 * NAMED or the profile (one that does not code the type: champsim, cvp,
 * drmemtrace, drmx on memory entries), say so and return EXIT_USAGE; else
 * EXIT_OK.  The writer's fallback is not the user's choice, so a program
 * refuses it rather than pass it over. */
int cli_encoder_codes(const simtrace_write_params *wp, const char *named, int type);

/* Whether encoder `enc` is the one -e NAMED asked for: NAMED itself, or
 * wp->profile_name, what the program made of it (-e vpc is cm2 for memory
 * entries). */
int cli_encoder_is_asked(const simtrace_write_params *wp, const char *named, const char *enc);

/* Say that the entries of stream `stream` from first_entry on, which the
 * bytes from byte offset offset to the end of file may have held (no whole
 * frame: simtrace_recovery_info.tail_lost), are lost, how many not known. */
void cli_say_tail_loss(const char *file, uint64_t offset, uint64_t bytes, uint64_t first_entry, const char *stream);

/* Raw entries that are text (the first 4 KiB printable, with line ends),
 * as when a lackey log is given without --from: warn, naming the remedy
 * (hint).  Regular files only: a pipe cannot be looked at. */
void cli_warn_if_text(int fd, const char *name, const char *hint);

/* Arguments like -10 or -99: getopt would take them as -1 -0 or -9 -9;
 * say that levels are -1 .. -9.  Words that are the arguments of options
 * (--stream -10, -o -12) are skipped, read as getopt_long reads them with
 * shortopts and longopts.  Returns 0 after the message (exit 2). */
int cli_check_levels(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Monotonic seconds. */
double cli_now(void);

/* --help: word w after a space, where *col (0-based, updated) is the
 * column the line has reached; a word that would pass column 79 starts a
 * new line under the options' text (column 24). */
void cli_help_word(FILE *f, size_t *col, const char *w);

/* s as a JSON string, quoted and escaped, to f. */
void cli_json_string(FILE *f, const char *s);

/* ---- simtrace-cat's shared helpers (simtrace_cat.c, cat_merge.c) ---- */

/* Write the n bytes at buf to fd whole (a write interrupted by a signal is
 * taken up again).  Returns 0, or -1 with errno set. */
int cli_write_all(int fd, const void *buf, size_t n);

/* Open a reader on fd with rp (keep_failed set here); a failure is
 * reported naming file, and where the container is bad.  Returns an exit
 * status (EXIT_OK: *r is open). */
int cli_open_reader(int fd, const char *file, simtrace_read_params *rp, simtrace_reader **r);

/* When r read its file through its frame headers (no directory), say so
 * (cli_say_recovered), not with quiet unless complete frames follow a
 * damaged frame header (they are not read). */
void cli_note_reader(simtrace_reader *r, const char *file, int quiet);

#endif

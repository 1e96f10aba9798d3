/*
 * dramsim2.c - DRAMSim2 trace text, "0xADDR CMD CYCLE" per line, both ways
 * (formats/IMPORT.md section 14).
 *
 * The import is one m64 stream, "dramsim2", in the file's order: the
 * requests of one cycle keep their order only in a single stream (the
 * merge of read/write/fetch streams puts a cycle's fetch first, and
 * mase_art.trc has a WRITE before an IFETCH of the same cycle).  The
 * command's spelling goes to the entry's tag, so the export gives it back;
 * the stream header "dramsim2" says the tags are this table's.  Streams of
 * other producers are written by their role: P_FETCH, P_MEM_RD, P_MEM_WR.
 */
#include <string.h>

#include "export_internal.h"
#include "import_internal.h"

#define DRAM_HEADER "dramsim2"
#define DRAM_STREAM "dramsim2"
#define DRAM_CMD_COL 8u /* the command is padded to 8 columns, as mase_art.trc is */

/* Spellings of the mase (READ, WRITE, IFETCH) and k6 (P_...) traces that
 * DRAMSim2's trace reader knows; the tag of an imported entry is index + 1. */
static const struct {
    const char *name;
    char kind; /* the access it is: 'I' fetch, 'L' read, 'S' write */
} dram_cmds[] = {
    {"READ", 'L'},      {"WRITE", 'S'},     {"IFETCH", 'I'},    {"P_MEM_RD", 'L'}, {"P_MEM_WR", 'S'},
    {"P_FETCH", 'I'},   {"P_LOCK_RD", 'L'}, {"P_LOCK_WR", 'S'}, {"BOFF", 'L'},     {"P_INT_ACK", 'L'},
};
#define DRAM_NCMDS (sizeof dram_cmds / sizeof dram_cmds[0])
/* The spelling written for a role, where no tag names one: the k6 names. */
enum { DRAM_P_MEM_RD = 3, DRAM_P_MEM_WR = 4, DRAM_P_FETCH = 5 };

/* ---- export ---------------------------------------------------------------- */

static size_t put_line(char *p, uint64_t addr, unsigned cmd, uint64_t cycle)
{
    size_t m = 2, k = strlen(dram_cmds[cmd].name);
    p[0] = '0';
    p[1] = 'x';
    size_t nd = st_x_hex(p + 2, addr, 8);
    for (size_t i = 0; i < nd; i++) /* DRAMSim2's traces spell hex in capitals */
        if (p[2 + i] >= 'a')
            p[2 + i] = (char)(p[2 + i] - 'a' + 'A');
    m += nd;
    p[m++] = ' ';
    memcpy(p + m, dram_cmds[cmd].name, k);
    m += k;
    do
        p[m++] = ' ';
    while (k++ < DRAM_CMD_COL - 1);
    m += st_x_dec(p + m, cycle);
    p[m++] = '\n';
    return m;
}

st_error st_x_dramsim2(st_exporter *x, const st_entry *e, char kind)
{
    char *p;
    RETURN_IF_ERROR(st_x_room(x, 2 * 64, &p));
    unsigned tag = (unsigned)(e->meta16 >> 1);
    int own = x->header_len == sizeof DRAM_HEADER - 1 && memcmp(x->header, DRAM_HEADER, x->header_len) == 0;
    if (own && tag >= 1 && tag <= DRAM_NCMDS) {
        x->len += put_line(p, e->addr, tag - 1, e->cycle);
        return ST_OK;
    }
    size_t m = 0;
    if (kind == 'I')
        m = put_line(p, e->addr, DRAM_P_FETCH, e->cycle);
    if (kind == 'L' || kind == 'M')
        m = put_line(p, e->addr, DRAM_P_MEM_RD, e->cycle);
    if (kind == 'S' || kind == 'M')
        m += put_line(p + m, e->addr, DRAM_P_MEM_WR, e->cycle);
    x->len += m;
    return ST_OK;
}

/* ---- import ------------------------------------------------------------------ */


static int blank(char c) { return c == ' ' || c == '\t'; }

static st_line_result dram_line(void *state, st_imp_out *out, const char *l, size_t len, const char **why,
                                st_error *code)
{
    (void)state;
    (void)len;
    const char *s = st_skip_blank(l);
    if (*s == '\0' || *s == '#')
        return ST_LINE_SKIP;
    uint64_t addr = 0, cycle = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    int n = st_parse_hex(&s, &addr);
    if (n < 0)
        IMP_TOO_LARGE("address wider than 64 bits");
    if (n == 0 || !blank(*s))
        IMP_BAD("expected '0xADDRESS COMMAND CYCLE'");
    s = st_skip_blank(s);
    const char *c = s;
    while (*s && !blank(*s))
        s++;
    size_t cl = (size_t)(s - c);
    unsigned cmd = 0;
    while (cmd < DRAM_NCMDS && !(strlen(dram_cmds[cmd].name) == cl && memcmp(dram_cmds[cmd].name, c, cl) == 0))
        cmd++;
    if (cmd == DRAM_NCMDS)
        IMP_BAD("unknown command (READ, WRITE, IFETCH, P_MEM_RD, P_MEM_WR, P_FETCH, P_LOCK_RD, P_LOCK_WR, BOFF, "
            "P_INT_ACK)");
    s = st_skip_blank(s);
    n = st_parse_dec(&s, &cycle);
    if (n == 0)
        IMP_BAD("expected a decimal cycle after the command");
    if (n < 0 || cycle > ST_CYCLE_MASK)
        IMP_TOO_LARGE("cycle beyond 48 bits");
    if (*st_skip_blank(s) != '\0')
        IMP_BAD("trailing characters after the cycle");
    uint8_t *p;
    st_error e = st_imp_slot(out, 0, &p);
    if (e != ST_OK) {
        *code = e;
        return ST_LINE_FATAL;
    }
    st_entry en = {cycle, (uint64_t)(cmd + 1) << 1, 0, addr, 0};
    st_entry_store(ST_TYPE_M64, p, &en);
    return ST_LINE_ENTRY;
}

st_error st_import_dramsim2(int fd, const st_import_opts *o, const st_import_sink *sink, st_import_stats *stats,
                            st_diag *d)
{
    st_imp_out out;
    st_imp_out_init(&out, sink, o);
    st_error e = st_imp_out_add(&out, DRAM_STREAM, ST_TYPE_M64, -1, (const uint8_t *)DRAM_HEADER,
                                sizeof DRAM_HEADER - 1);
    if (e == ST_OK)
        e = st_imp_run_lines(fd, "dramsim2", dram_line, NULL, &out, o, stats, d);
    st_imp_out_free(&out);
    return e;
}

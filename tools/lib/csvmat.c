/* csvmat.c - strict reader (and writer) of numeric matrices in plain CSV.
 *
 * One pass over the bytes. Each line is collected (at most max_line bytes),
 * checked to be text (no NUL or control bytes, valid UTF-8), then, unless it
 * is blank or a comment, split on commas. Every cell must match the decimal
 * number grammar
 *     [+-]? ( digits [ "." digits? ] | "." digits ) ( [eE] [+-]? digits )?
 * before strtod converts it, so that "12abc", "0x1p3", "nan" and "1,5" with a
 * decimal comma are all refused with the reason. The numbers are appended
 * row by row to a growing buffer; the first data row fixes the number of
 * columns and every later row must have as many.
 *
 * Shapes: the result is (rows, cols) = (data lines, cells per data line).
 */
#include "csvmat.h"
#include "mat.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

/* ---- where the bytes come from: a stream or a buffer ----------------- */

/* Three sources: a regular file (a stream), a buffer, or anything else that is not a
 * directory (a named pipe, a character device, a socket), read from a non-blocking fd
 * through poll: each read waits at most wait_ms for data and the whole input at most
 * CSVMAT_STREAM_LIMIT times that, so a writer that never writes, stalls half-way or trickles
 * forever is refused with a message (timed_out) and never waited for forever. */
typedef struct {
    FILE *f;                      /* a regular file, or NULL          */
    int fd;                       /* a pipe or device (f NULL), or -1 */
    int wait_ms;                  /* the most one read waits          */
    double deadline;              /* the monotonic time it all ends   */
    int timed_out;                /* 1 idle, 2 past the deadline      */
    int read_errno;               /* a read error, or 0               */
    const char *kind;             /* "a named pipe", "a character device", ... */
    unsigned char rbuf[4096];
    size_t rlen, rpos;
    const unsigned char *buf;     /* the buffer source (f NULL, fd -1) */
    size_t len, pos;
} csv_src;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* the next byte of a pipe or device: poll for at most wait_ms (and no later than the deadline) */
static int fd_getc(csv_src *s)
{
    while (s->rpos == s->rlen) {
        double left = s->deadline - now_ms();
        if (left <= 0) { s->timed_out = 2; return EOF; }
        int ms = left < s->wait_ms ? (int)left + 1 : s->wait_ms;
        struct pollfd pfd = {s->fd, POLLIN, 0};
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) { s->read_errno = errno; return EOF; }
        if (r == 0) { s->timed_out = now_ms() >= s->deadline ? 2 : 1; return EOF; }
        ssize_t n = read(s->fd, s->rbuf, sizeof s->rbuf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (n < 0) { s->read_errno = errno; return EOF; }
        if (n == 0) return EOF;                 /* the writer closed its end */
        s->rlen = (size_t)n, s->rpos = 0;
    }
    return s->rbuf[s->rpos++];
}

static int src_getc(csv_src *s)
{
    if (s->f) return getc(s->f);
    if (s->fd >= 0) return fd_getc(s);
    return s->pos < s->len ? s->buf[s->pos++] : EOF;
}

/* ---- the parser ------------------------------------------------------- */

typedef struct {
    const char *name;             /* the file, for messages           */
    csvmat_limits lim;
    char *line;                   /* current line, NUL-terminated     */
    size_t line_cap, line_len;
    size_t lineno;                /* 1-based number of current line   */
    size_t nbytes;                /* bytes consumed so far            */
    double *vals;                 /* the numbers, row after row       */
    size_t nvals, vals_cap;
    size_t rows, cols;            /* data rows so far, cells per row  */
    size_t first_line;            /* line number of the first data row */
    int point_seen;               /* some cell so far had a '.'       */
} csv_parser;

csvmat_limits csvmat_limits_default(void)
{
    return (csvmat_limits){ CSVMAT_MAX_LINE, CSVMAT_MAX_BYTES, CSVMAT_MAX_CELLS };
}

/* A cell as it may be shown in a message: printable ASCII kept, any other
 * byte as \xNN, cut after 40 characters. */
static void cell_show(char *dst, size_t n, const char *s, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < len && k + 8 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == 40) { memcpy(dst + k, "...", 3); k += 3; break; }
        if (c >= 0x20 && c < 0x7f && c != '\'') dst[k++] = (char)c;
        else k += (size_t)snprintf(dst + k, n - k, "\\x%02x", c);
    }
    dst[k] = '\0';
}

/* Index of the first byte of s (n) that is not valid UTF-8, or n. */
static size_t utf8_bad(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t extra;
        unsigned char lo = 0x80, hi = 0xbf;       /* range of the 2nd byte */
        if (c < 0x80) { i++; continue; }
        if (c >= 0xc2 && c <= 0xdf) extra = 1;
        else if (c == 0xe0) { extra = 2; lo = 0xa0; }
        else if (c >= 0xe1 && c <= 0xec) extra = 2;
        else if (c == 0xed) { extra = 2; hi = 0x9f; }   /* no surrogates */
        else if (c >= 0xee && c <= 0xef) extra = 2;
        else if (c == 0xf0) { extra = 3; lo = 0x90; }
        else if (c >= 0xf1 && c <= 0xf3) extra = 3;
        else if (c == 0xf4) { extra = 3; hi = 0x8f; }
        else return i;
        if (n - i <= extra) return i;
        if (s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k <= extra; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xbf) return i;
        i += extra + 1;
    }
    return n;
}

/* 1 when c (len) matches the decimal number grammar above. */
static int number_syntax(const char *c, size_t len)
{
    size_t i = 0, int_digits = 0, frac_digits = 0;
    if (i < len && (c[i] == '+' || c[i] == '-')) i++;
    while (i < len && c[i] >= '0' && c[i] <= '9') { i++; int_digits++; }
    if (i < len && c[i] == '.') {
        i++;
        while (i < len && c[i] >= '0' && c[i] <= '9') { i++; frac_digits++; }
    }
    if (int_digits + frac_digits == 0) return 0;
    if (i < len && (c[i] == 'e' || c[i] == 'E')) {
        size_t exp_digits = 0;
        i++;
        if (i < len && (c[i] == '+' || c[i] == '-')) i++;
        while (i < len && c[i] >= '0' && c[i] <= '9') { i++; exp_digits++; }
        if (exp_digits == 0) return 0;
    }
    return i == len;
}

/* 1 when c (len) spells NaN or infinity the way strtod would take it. */
static int nonfinite_word(const char *c, size_t len)
{
    if (len > 0 && (c[0] == '+' || c[0] == '-')) { c++; len--; }
    if ((len == 3 && !strncasecmp(c, "nan", 3)) || (len == 3 && !strncasecmp(c, "inf", 3)) ||
        (len == 8 && !strncasecmp(c, "infinity", 8)))
        return 1;
    return len >= 5 && !strncasecmp(c, "nan(", 4) && c[len - 1] == ')';
}

/* *out = the number in cell `col` of the current line: c (len), blanks
 * already trimmed; c[len] may be overwritten (it is a separator or NUL). */
static int csv_cell(const csv_parser *p, size_t col, char *c, size_t len, double *out)
{
    char shown[200];
    if (len == 0)
        return att_fail(ATT_EUSAGE, "%s, line %zu, column %zu: empty cell (a missing number, "
                        "or one comma too many)", p->name, p->lineno, col);
    cell_show(shown, sizeof shown, c, len);
    if (!number_syntax(c, len)) {
        if (nonfinite_word(c, len))
            return att_fail(ATT_EUSAGE,
                            "%s, line %zu, column %zu: '%s' is not a finite number "
                            "(NaN and infinite values are refused)",
                            p->name, p->lineno, col, shown);
        // a spreadsheet's CSV of a decimal-comma locale: 1,5;2,5 (';' between cells)
        if (memchr(c, ';', len))
            return att_fail(ATT_EUSAGE, "%s, line %zu, column %zu: '%s' is not a number: "
                            "semicolons between the numbers (and decimal commas?); write commas "
                            "between them and '.' as the decimal point: 1.5,2.5 (not 1,5;2,5)",
                            p->name, p->lineno, col, shown);
        return att_fail(ATT_EUSAGE, "%s, line %zu, column %zu: '%s' is not a number "
                        "(expected a decimal number such as -1.5 or 2e-3)",
                        p->name, p->lineno, col, shown);
    }
    char save = c[len], *end;
    c[len] = '\0';
    errno = 0;
    double v = strtod(c, &end);
    c[len] = save;
    if (end != c + len)     /* only in a locale whose decimal point is not '.' */
        return att_fail(ATT_EUSAGE, "%s, line %zu, column %zu: '%s' is not a number in this "
                        "locale", p->name, p->lineno, col, shown);
    if (!isfinite(v))       /* overflow; an underflow to 0 or a subnormal is kept */
        return att_fail(ATT_EUSAGE, "%s, line %zu, column %zu: '%s' is too large for a double "
                        "(|x| < 1.8e308)", p->name, p->lineno, col, shown);
    *out = v;
    return ATT_OK;
}

static int csv_append(csv_parser *p, double v)
{
    if (p->nvals == p->vals_cap) {
        if (p->nvals >= p->lim.max_cells)
            return att_fail(
                ATT_EUSAGE, "%s, line %zu: more than %zu number%s, the limit %s", p->name,
                p->lineno, p->lim.max_cells, p->lim.max_cells == 1 ? "" : "s",
                p->lim.max_cells >= CSVMAT_MAX_CELLS
                    ? "of the CSV reader (8 Mi numbers, 64 MiB, per matrix; a fixed cap, "
                      "not the memory budget)"
                    : "that the memory budget leaves for this matrix (raise --max-memory)");
        size_t cap = p->vals_cap ? 2 * p->vals_cap : 64;
        if (cap > p->lim.max_cells) cap = p->lim.max_cells;
        if (cap > SIZE_MAX / sizeof(double)) cap = SIZE_MAX / sizeof(double);
        double *nv = realloc(p->vals, cap * sizeof *nv);
        if (nv == NULL)
            return att_fail(ATT_ERUNTIME, "%s: out of memory after %zu numbers", p->name, p->nvals);
        p->vals = nv;
        p->vals_cap = cap;
    }
    p->vals[p->nvals++] = v;
    return ATT_OK;
}

/* Read the next line (without its '\n') into p->line; *got = 0 at the end
 * of the input. Enforces the NUL, line-length and file-size limits. */
static int csv_read_line(csv_parser *p, csv_src *s, int *got)
{
    size_t n = 0;
    int c;
    *got = 0;
    while ((c = src_getc(s)) != EOF) {
        *got = 1;
        if (++p->nbytes > p->lim.max_bytes)
            return att_fail(ATT_EUSAGE,
                            "%s, line %zu: the file is larger than the limit of %zu bytes", p->name,
                            p->lineno + 1, p->lim.max_bytes);
        if (c == '\n') break;
        if (c == '\0')
            return att_fail(ATT_EUSAGE,
                            "%s, line %zu, byte %zu: a NUL byte: this is not a text file", p->name,
                            p->lineno + 1, n + 1);
        if (n >= p->lim.max_line)
            return att_fail(ATT_EUSAGE,
                            "%s, line %zu: the line is longer than the limit of %zu bytes", p->name,
                            p->lineno + 1, p->lim.max_line);
        if (n + 1 >= p->line_cap) {
            size_t cap = p->line_cap ? 2 * p->line_cap : 256;
            if (cap > p->lim.max_line + 1) cap = p->lim.max_line + 1;
            char *nl = realloc(p->line, cap);
            if (nl == NULL)
                return att_fail(ATT_ERUNTIME, "%s: out of memory reading a line", p->name);
            p->line = nl;
            p->line_cap = cap;
        }
        p->line[n++] = (char)c;
    }
    if (s->f && ferror(s->f))
        return att_fail(ATT_ERUNTIME, "%s, line %zu: read error: %s", p->name, p->lineno + 1,
                        strerror(errno));
    if (s->read_errno)
        return att_fail(ATT_ERUNTIME, "%s, line %zu: read error: %s", p->name, p->lineno + 1,
                        strerror(s->read_errno));
    if (s->timed_out == 1 && p->nbytes == 0)
        return att_fail(ATT_EUSAGE, "%s: %s with no writer after %.3g s (nothing to read; not a "
                        "regular file)", p->name, s->kind, s->wait_ms / 1000.0);
    if (s->timed_out == 1)
        return att_fail(ATT_EUSAGE,
                        "%s, line %zu: nothing more for %.3g s after %zu bytes (a pipe or "
                        "device whose writer stalls; not a regular file): refused",
                        p->name, p->lineno + 1, s->wait_ms / 1000.0, p->nbytes);
    if (s->timed_out == 2)
        return att_fail(ATT_EUSAGE,
                        "%s, line %zu: still being written after %.3g s (%zu bytes; the "
                        "limit for a pipe or device, not a regular file): refused",
                        p->name, p->lineno + 1, CSVMAT_STREAM_LIMIT * s->wait_ms / 1000.0,
                        p->nbytes);
    if (!*got) return ATT_OK;
    if (p->line == NULL) {                       /* an empty first line */
        p->line = malloc(1);
        if (p->line == NULL) return att_fail(ATT_ERUNTIME, "%s: out of memory", p->name);
        p->line_cap = 1;
    }
    p->line[n] = '\0';
    p->line_len = n;
    p->lineno++;
    return ATT_OK;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Check the current line is text, then add its cells (if it is a data row). */
static int csv_parse_line(csv_parser *p)
{
    char *s = p->line;
    size_t n = p->line_len, off = 0;
    if (p->lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) { s += 3; n -= 3; off = 3; }
    if (n > 0 && s[n - 1] == '\r') s[--n] = '\0';      /* CRLF */

    // text: no control bytes (tab allowed), valid UTF-8
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\r')
            return att_fail(ATT_EUSAGE, "%s, line %zu, byte %zu: a carriage return inside a line "
                            "(lines must end in LF or CRLF)", p->name, p->lineno, off + i + 1);
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return att_fail(ATT_EUSAGE, "%s, line %zu, byte %zu: control byte 0x%02x: this is not "
                            "a text file", p->name, p->lineno, off + i + 1, c);
    }
    size_t bad = utf8_bad((const unsigned char *)s, n);
    if (bad < n)
        return att_fail(ATT_EUSAGE, "%s, line %zu, byte %zu: byte 0x%02x is not UTF-8 text: this "
                        "is not a text file", p->name, p->lineno, off + bad + 1,
                        (unsigned char)s[bad]);

    // blank lines and comments
    size_t i = 0;
    while (i < n && is_blank(s[i])) i++;
    if (i == n || s[i] == '#') return ATT_OK;

    // cells: split on ',', trim blanks, parse
    size_t col = 0;
    char *cell = s;
    for (;;) {
        char *comma = strchr(cell, ',');       /* s has no NUL inside (checked) */
        char *end = comma ? comma : s + n;
        col++;
        while (cell < end && is_blank(*cell)) cell++;
        while (end > cell && is_blank(end[-1])) end--;
        double v = 0.0;
        int st = csv_cell(p, col, cell, (size_t)(end - cell), &v);
        if (st) return st;
        if (memchr(cell, '.', (size_t)(end - cell))) p->point_seen = 1;
        if ((st = csv_append(p, v))) return st;
        if (comma == NULL) break;
        cell = comma + 1;
    }
    if (p->rows == 0) {
        p->cols = col;
        p->first_line = p->lineno;
    } else if (col != p->cols) {
        // more cells than the first row and no '.' anywhere yet: perhaps decimal
        // commas (0,5 read as the two cells 0 and 5)
        return att_fail(ATT_EUSAGE,
                        "%s, line %zu: %zu column%s, but the first row (line %zu) has "
                        "%zu: every row needs the same number of columns (ragged rows)%s",
                        p->name, p->lineno, col, col == 1 ? "" : "s", p->first_line, p->cols,
                        p->point_seen || col < p->cols
                            ? ""
                            : "; if the numbers have decimal commas, each comma "
                              "splits a number in two cells: write 0.5, not 0,5");
    }
    p->rows++;
    return ATT_OK;
}

static int csv_parse(gsl_matrix **A, const char *name, csv_src *src, const csvmat_limits *lim)
{
    csv_parser p = { .name = name };
    csvmat_limits d = csvmat_limits_default();
    p.lim = lim ? *lim : d;
    if (p.lim.max_line == 0) p.lim.max_line = d.max_line;
    if (p.lim.max_bytes == 0) p.lim.max_bytes = d.max_bytes;
    if (p.lim.max_cells == 0) p.lim.max_cells = d.max_cells;

    int st = ATT_OK, got = 1;
    while (st == ATT_OK) {
        st = csv_read_line(&p, src, &got);
        if (st || !got) break;
        st = csv_parse_line(&p);
    }
    if (st == ATT_OK && p.rows == 0)
        st = att_fail(ATT_EUSAGE, p.nbytes == 0 ? "%s: the file is empty"
                                                : "%s: no numbers (only comments or blank lines)",
                      name);
    if (st == ATT_OK) {
        *A = mat_new(p.rows, p.cols);
        if (*A == NULL) st = att_alloc_status();   /* mat_new recorded why */
        else
            for (size_t r = 0; r < p.rows; r++)
                memcpy((*A)->data + r * (*A)->tda, p.vals + r * p.cols, p.cols * sizeof(double));
    }
    free(p.line);
    free(p.vals);
    return st;
}

int csvmat_read(gsl_matrix **A, const char *path, const csvmat_limits *lim)
{
    *A = NULL;
    /* non-blocking open: a named pipe that nobody writes to would block open() forever */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return att_fail(ATT_EUSAGE, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return att_fail(ATT_ERUNTIME, "%s: cannot stat: %s", path, strerror(e));
    }
    size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : CSVMAT_MAX_BYTES;
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return att_fail(ATT_EUSAGE, "%s: is a directory, not a CSV file", path);
    }
    csv_src src = { .fd = -1 };
    if (S_ISREG(sb.st_mode)) {
        if ((uintmax_t)sb.st_size > max_bytes) {
            close(fd);
            return att_fail(ATT_EUSAGE, "%s: %jd bytes, more than the limit of %zu bytes",
                            path, (intmax_t)sb.st_size, max_bytes);
        }
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        src.f = fdopen(fd, "rb");
        if (src.f == NULL) {
            int e = errno;
            close(fd);
            return att_fail(ATT_ERUNTIME, "%s: cannot open a stream: %s", path, strerror(e));
        }
    } else {
        /* a named pipe, a device, a socket: bounded waits (csv_src) */
        int ms = CSVMAT_FIFO_WAIT_MS;
        const char *t = getenv("ATT_TEST_FIFO_WAIT_MS");        /* test-only */
        long tl = t && *t ? strtol(t, NULL, 10) : 0;
        if (tl > 0 && tl <= 3600000) ms = (int)tl;
        src.fd = fd, src.wait_ms = ms;
        src.kind = S_ISFIFO(sb.st_mode)   ? "a named pipe"
                   : S_ISCHR(sb.st_mode)  ? "a character device"
                   : S_ISSOCK(sb.st_mode) ? "a socket"
                   : S_ISBLK(sb.st_mode)  ? "a block device"
                                          : "a special file";
        src.deadline = now_ms() + CSVMAT_STREAM_LIMIT * (double)ms;
    }
    int st = csv_parse(A, path, &src, lim);
    if (src.f) fclose(src.f);
    else close(fd);
    return st;
}

int csvmat_read_mem(gsl_matrix **A, const char *name, const void *buf, size_t len,
                    const csvmat_limits *lim)
{
    *A = NULL;
    csv_src src = { .fd = -1, .buf = buf, .len = len };
    return csv_parse(A, name, &src, lim);
}

/* A (rows, cols) -> f, one line per row, "%.17g" cells. */
int csvmat_write(FILE *f, const gsl_matrix *A)
{
    for (size_t i = 0; i < A->size1; i++) {
        for (size_t j = 0; j < A->size2; j++) {
            double x = gsl_matrix_get(A, i, j);
            if (j) fputc(',', f);
            if (isnan(x)) fputs("nan", f);
            else if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
            else fprintf(f, "%.17g", x);
        }
        fputc('\n', f);
    }
    return ferror(f) ? att_fail(ATT_ERUNTIME, "write error") : ATT_OK;
}

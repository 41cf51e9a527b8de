/* csvmat.h - a numeric matrix from a plain CSV file, read strictly.
 *
 * The format (what bin/attention reads, and what csvmat_write writes):
 *   - one matrix row per line, cells separated by commas, no header;
 *   - a cell is a decimal number: 3, -2.5, .5, 1e-3, +4E+2 (blanks around
 *     it allowed); hexadecimal, quoted cells, nan and inf are refused;
 *   - lines whose first non-blank character is '#' are comments, blank lines
 *     are skipped; LF or CRLF line ends; a UTF-8 byte order mark at the very
 *     start is skipped (spreadsheets write one);
 *   - the text must be UTF-8 without control bytes (a NUL byte, for example,
 *     means "not a text file").
 *
 * Every error is ATT_EUSAGE (ATT_ERUNTIME for a read error or no memory) with
 * a message that names the file, the line and, for a bad cell, the column
 * (the cell's number in its row, from 1):
 *   X.csv, line 3, column 2: 'abc' is not a number
 *
 * Limits (csvmat_limits; 0 in a field means its default):
 *   max_line   bytes in one line, without its newline    default 1 MiB
 *   max_bytes  bytes in the file                         default 64 MiB
 *   max_cells  numbers in the matrix                     default 8 Mi (64 MiB)
 * The defaults are fixed caps of the reader (a caller such as bin/attention
 * lowers max_cells to what its --max-memory budget leaves; it cannot raise
 * them). Anything that is neither a regular file nor a directory (a named
 * pipe, <(command), a character device, a socket) is read with bounded waits:
 * no byte for CSVMAT_FIFO_WAIT_MS (10 s: no writer, or one that stalls) or
 * still being written after CSVMAT_STREAM_LIMIT times that (60 s) and it is
 * refused (ATT_EUSAGE) with a message saying which; never waited for forever.
 */
#ifndef ATT_CSVMAT_H
#define ATT_CSVMAT_H

#include <stddef.h>
#include <stdio.h>
#include <gsl/gsl_matrix.h>

#define CSVMAT_MAX_LINE  ((size_t)1 << 20)
#define CSVMAT_MAX_BYTES ((size_t)64 << 20)
#define CSVMAT_MAX_CELLS ((size_t)8 << 20)
/* a named pipe (mkfifo, <(command)) must get a writer within this time */
#define CSVMAT_FIFO_WAIT_MS 10000
/* and the whole of it must arrive within this many such waits */
#define CSVMAT_STREAM_LIMIT 6

typedef struct {
    size_t max_line;    /* bytes per line (without the newline) */
    size_t max_bytes;   /* bytes per file                       */
    size_t max_cells;   /* numbers per matrix                   */
} csvmat_limits;

/* The defaults above. */
csvmat_limits csvmat_limits_default(void);

/* *A (rows, cols) = the matrix in the file at path, allocated with mat_new;
 * lim may be NULL (defaults). On error *A is NULL and the message says what
 * is wrong, where. */
int csvmat_read(gsl_matrix **A, const char *path, const csvmat_limits *lim);

/* The same from the len bytes at buf (which may hold NULs); name stands for
 * the file in messages. */
int csvmat_read_mem(gsl_matrix **A, const char *name, const void *buf,
                    size_t len, const csvmat_limits *lim);

/* Write A (rows, cols) to f: one line per row, cells "%.17g" (they read
 * back exactly), comma separated. Non-finite entries are written as inf,
 * -inf or nan (which csvmat_read refuses). ATT_ERUNTIME on a write error. */
int csvmat_write(FILE *f, const gsl_matrix *A);

#endif

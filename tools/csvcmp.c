/* csvcmp.c - compare two CSV files of results, number by number.
 *
 *   csvcmp [--rel R] [--abs A] OLD NEW
 * Lines starting with '#' are skipped. Text fields must be equal; numeric
 * fields must satisfy |old - new| <= R max(|old|, |new|) + A (default R =
 * 1e-9, A = 1e-12: numbers at rounding level, such as an identity's residual
 * of 3e-17, depend on the CPU's BLAS kernel and are compared absolutely). In
 * verdict files (a "run_dependent" column), a row with run_dependent = 1 (a
 * time) is not compared beyond its id, kind and macro. Every number that moved is named: file, line, column, old, new.
 * Exit 0 when equal, 1 when something moved, 2 on bad usage or input.
 */
#include "csvline.h"
#include "opts.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXF = 4096, LINE = 1 << 20 };

static int is_number(const char *s, double *v)
{
    char *end;
    if (*s == '\0') return 0;
    *v = strtod(s, &end);
    return *end == '\0';
}

static int next_line(FILE *f, char *buf, int *lineno)
{
    while (fgets(buf, LINE, f)) {
        (*lineno)++;
        if (buf[0] != '#') return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    att_init();
    double rel = 1e-9, abs_ = 1e-12;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
        if (!strcmp(argv[i], "--rel") && parse_double(argv[i + 1], &rel, "--rel") == 0) continue;
        if (!strcmp(argv[i], "--abs") && parse_double(argv[i + 1], &abs_, "--abs") == 0) continue;
        fprintf(stderr, "csvcmp: bad option %s\n", argv[i]);
        return 2;
    }
    if (argc - i != 2) { fprintf(stderr, "usage: csvcmp [--rel R] [--abs A] OLD NEW\n"); return 2; }
    const char *pa = argv[i], *pb = argv[i + 1];
    FILE *fa = fopen(pa, "r"), *fb = fopen(pb, "r");
    if (!fa || !fb) {
        fprintf(stderr, "csvcmp: cannot read %s\n", fa ? pb : pa);
        if (fa) fclose(fa);
        if (fb) fclose(fb);
        return 2;
    }
    char *la = malloc(LINE), *lb = malloc(LINE), *ba = malloc(LINE), *bb = malloc(LINE);
    char **fa_ = malloc(MAXF * sizeof *fa_), **fb_ = malloc(MAXF * sizeof *fb_);
    char **hdr = malloc(MAXF * sizeof *hdr), *hbuf = malloc(LINE);
    if (!la || !lb || !ba || !bb || !fa_ || !fb_ || !hdr || !hbuf) { fprintf(stderr, "csvcmp: out of memory\n"); return 3; }
    int na_line = 0, nb_line = 0, moved = 0, nh = 0, rd_col = -1;
    for (int row = 0;; row++) {
        int ha = next_line(fa, la, &na_line), hb = next_line(fb, lb, &nb_line);
        if (!ha && !hb) break;
        if (ha != hb) {
            printf("%s: %s has more rows than %s\n", pa, ha ? pa : pb, ha ? pb : pa);
            moved++;
            break;
        }
        int na = csv_split(la, fa_, MAXF, ba, LINE), nb = csv_split(lb, fb_, MAXF, bb, LINE);
        if (na < 0 || nb < 0) { fprintf(stderr, "csvcmp: %s line %d: malformed CSV\n", pa, na_line); return 2; }
        if (row == 0) {
            nh = csv_split(la, hdr, MAXF, hbuf, LINE);
            for (int c = 0; c < nh; c++) if (!strcmp(hdr[c], "run_dependent")) rd_col = c;
        }
        if (na != nb) { printf("%s line %d: %d fields, now %d\n", pa, na_line, na, nb); moved++; continue; }
        int timing = rd_col >= 0 && rd_col < na && !strcmp(fa_[rd_col], "1");
        for (int c = 0; c < na; c++) {
            double x, y;
            const char *col = c < nh ? hdr[c] : "?";
            if (timing && strcmp(col, "id") && strcmp(col, "kind") && strcmp(col, "macro")) continue;
            if (is_number(fa_[c], &x) && is_number(fb_[c], &y)) {
                if (x == y || (isnan(x) && isnan(y))) continue;
                if (fabs(x - y) <= rel * fmax(fabs(x), fabs(y)) + abs_) continue;
                printf("%s line %d, column %s: %s -> %s\n", pa, na_line, col, fa_[c], fb_[c]);
                moved++;
            } else if (strcmp(fa_[c], fb_[c]) != 0) {
                printf("%s line %d, column %s: '%s' -> '%s'\n", pa, na_line, col, fa_[c], fb_[c]);
                moved++;
            }
        }
    }
    fclose(fa);
    fclose(fb);
    free(la); free(lb); free(ba); free(bb); free(fa_); free(fb_); free(hdr); free(hbuf);
    return moved ? 1 : 0;
}

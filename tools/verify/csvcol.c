/* csvcol.c - print named columns of a CSV file, tab-separated (for scripts).
 *   csvcol FILE COLUMN ...
 * Quoted fields with commas are handled (RFC 4180); '#' lines are skipped. */
#include "csvline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXF = 256, LINE = 1 << 16 };

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: csvcol FILE COLUMN ...\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { fprintf(stderr, "csvcol: cannot read %s\n", argv[1]); return 2; }
    static char line[LINE], buf[LINE];
    char *fields[MAXF];
    int col[64], ncol = argc - 2, header = 1;
    if (ncol > 64) { fclose(f); return 2; }
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int n = csvline_split(line, fields, MAXF, buf, sizeof buf);
        if (n < 0) {
            fprintf(stderr, "csvcol: %s: malformed line\n", argv[1]);
            fclose(f);
            return 2;
        }
        if (header) {
            for (int c = 0; c < ncol; c++) {
                col[c] = -1;
                for (int k = 0; k < n; k++) if (!strcmp(fields[k], argv[c + 2])) col[c] = k;
                if (col[c] < 0) {
                    fprintf(stderr, "csvcol: %s has no column %s\n", argv[1], argv[c + 2]);
                    fclose(f);
                    return 2;
                }
            }
            header = 0;
            continue;
        }
        for (int c = 0; c < ncol; c++)
            printf("%s%s", col[c] < n ? fields[col[c]] : "", c + 1 < ncol ? "\t" : "\n");
    }
    fclose(f);
    return 0;
}

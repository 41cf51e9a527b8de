/* csvline.c - split a CSV line: "a,""b"",c" -> a | "b" | c (RFC 4180). */
#include "csvline.h"

int csvline_split(const char *line, char **fields, int max, char *buf, size_t bufsize)
{
    int n = 0, quoted = 0;
    size_t k = 0;
    if (max < 1 || bufsize < 1) return -1;
    fields[n++] = buf;
    for (const char *p = line; *p && (quoted || (*p != '\n' && *p != '\r')); p++) {
        char c = *p;
        if (quoted) {
            if (c == '"' && p[1] == '"') p++;            /* "" inside quotes */
            else if (c == '"') { quoted = 0; continue; }
        } else if (c == '"') {
            quoted = 1;
            continue;
        } else if (c == ',') {
            if (k + 1 >= bufsize || n >= max) return -1;
            buf[k++] = '\0';
            fields[n++] = buf + k;
            continue;
        }
        if (k + 1 >= bufsize) return -1;
        buf[k++] = c;
    }
    if (quoted) return -1;
    buf[k] = '\0';
    return n;
}

/* csvline.h - split one line of CSV text (RFC 4180 quoting) into fields. */
#ifndef ATT_CSVLINE_H
#define ATT_CSVLINE_H

#include <stddef.h>

/* Split `line` (up to its newline) into at most `max` fields. The field
 * texts are copied, unquoted, into buf (bufsize bytes) and fields[k] points
 * into it. Returns the number of fields, or -1 if there are more than max,
 * the text does not fit, or a quote is not closed. */
int csvline_split(const char *line, char **fields, int max, char *buf, size_t bufsize);

#endif

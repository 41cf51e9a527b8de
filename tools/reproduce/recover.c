/* recover.c - finish or undo what a killed run left in an output folder.
 *
 *   recover DIR ...
 *
 * make reproduce and make verify run it before anything else (tools/reproduce/
 * prune_results.sh, tools/verify/verify.sh), as every program does for its --out
 * (lib/run/afile.h, afile_recover): in DIR and every folder below it (not
 * through a symlink), the run folder .att-run.<pid> of a dead process is
 * rolled forward (its journal: the whole new set) or back (the whole old
 * set), then removed. A DIR that does not exist is fine.
 * Exit status: 0 done, 2 bad usage, 3 a damaged journal or a failed rename
 * (named on stderr; that run folder is left as it is).
 */
#include "afile.h"
#include "status.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* afile_recover on dir, then on every real subfolder (depth <= 16) */
static int recover_tree(const char *dir, int depth)
{
    int st = afile_recover(dir);
    if (st != ATT_OK) att_print_error("recover");
    DIR *d = depth < 16 ? opendir(dir) : NULL;
    if (d == NULL) return st;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strncmp(e->d_name, ".att-run.", 9))
            continue;
        char p[PATH_MAX];
        struct stat sb;
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            int s = recover_tree(p, depth + 1);
            if (st == ATT_OK) st = s;
        }
    }
    closedir(d);
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: recover DIR ... (finish or undo what a killed run left in DIR)\n");
        return argc < 2 ? 2 : strcmp(argv[1], "--help") ? 2 : 0;
    }
    int st = ATT_OK;
    for (int i = 1; i < argc; i++) {
        int s = recover_tree(argv[i], 0);
        if (st == ATT_OK) st = s;
    }
    return st == ATT_OK ? 0 : 3;
}

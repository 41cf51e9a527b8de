/* par.c - the parallel context (see par.h): Open MPI with -DATT_MPI,
 * single-process stubs otherwise. */
#include "par.h"
#include "afile.h"
#include "status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ATT_MPI
#include <mpi.h>

static int initialized_here;
static const char *program_name = "mpi";

static int mpi_up(void)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    if (up) MPI_Finalized(&down);
    return up && !down;
}

static void finalize_at_exit(void)
{
    if (initialized_here && mpi_up()) MPI_Finalize();
}

int par_init(int *argc, char ***argv)
{
    if (argc && argv && *argc > 0 && (*argv)[0]) {
        const char *slash = strrchr((*argv)[0], '/');
        program_name = slash ? slash + 1 : (*argv)[0];
    }
    if (mpi_up()) return ATT_OK;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return att_fail(ATT_ERUNTIME, "MPI_Init_thread failed");
    initialized_here = 1;
    atexit(finalize_at_exit);
    /* errors come back as codes; we turn them into one message and abort */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return ATT_OK;
}

int par_rank(void)
{
    int r = 0;
    if (mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int par_size(void)
{
    int n = 1;
    if (mpi_up()) MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int par_enabled(void) { return 1; }

void par_set_name(const char *id) { if (id) program_name = id; }

void par_abort(int code)
{
    if (par_size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* An MPI call failed: there is no way to agree any more; end the job. */
static void mpi_failed(const char *what)
{
    fprintf(stderr, "rank %d: MPI %s failed; ending the run\n", par_rank(), what);
    par_abort(ATT_ERUNTIME);
}

/* Ranks that reach different collective calls (one failed where the others
 * did not, e.g. an allocation refused on one node only) cannot agree any
 * more: the rank with the error prints it and ends the job. */
static void diverged(int status)
{
    if (status >= ATT_EUSAGE) {
        fprintf(stderr, "%s: rank %d: %s\n", program_name, par_rank(),
                att_last_error()[0] ? att_last_error() : "unknown error");
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, status);
    }
    /* a rank without an error waits for the failing rank's abort; without
     * one anywhere, the ranks ran different code: end with a message */
    sleep(5);
    if (par_is_root())
        fprintf(stderr,
                "%s: the MPI ranks reached different points of the program; ending the run\n",
                program_name);
    MPI_Abort(MPI_COMM_WORLD, ATT_ERUNTIME);
    exit(ATT_ERUNTIME);
}

int par_agree_keyed(int status, int site, unsigned long long key)
{
    int n = par_size();
    if (n == 1) return status;
    int err = status >= ATT_EUSAGE;
    long long in[4] = {err ? (long long)key * n + par_rank() : LLONG_MAX, site, -site,
                       err ? LLONG_MAX : -(long long)status}, out[4];
    if (MPI_Allreduce(in, out, 4, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        mpi_failed("Allreduce");
    if (out[1] != -out[2]) diverged(status);
    if (out[0] == LLONG_MAX) return (int)-out[3];     /* no error: the largest status */
    int first = (int)(out[0] % n);
    struct { int code; char msg[1024]; } e = {status, ""};
    if (par_rank() == first) snprintf(e.msg, sizeof e.msg, "%s", att_last_error());
    if (MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, MPI_COMM_WORLD) != MPI_SUCCESS)
        mpi_failed("Bcast");
    e.msg[sizeof e.msg - 1] = '\0';
    if (first != 0 && strncmp(e.msg, "rank ", 5) != 0) {
        char m[1100];
        snprintf(m, sizeof m, "rank %d: %s", first, e.msg);
        return att_fail(e.code, "%s", m);
    }
    return att_fail(e.code, "%s", e.msg);
}

int par_agree(int status, int site) { return par_agree_keyed(status, site, 0); }

int par_bcast_pieces(void *base, const size_t *off, const size_t *len, size_t nblocks, int root)
{
    if (par_size() == 1 || nblocks == 0) return ATT_OK;
    if (nblocks > INT_MAX)
        return att_fail(ATT_ERUNTIME, "MPI: %zu pieces are too many for one broadcast", nblocks);
    int *bl = malloc(nblocks * sizeof *bl);
    MPI_Aint *disp = malloc(nblocks * sizeof *disp);
    if (bl == NULL || disp == NULL) {
        free(bl); free(disp);
        return att_fail(ATT_ERUNTIME, "out of memory for an MPI broadcast of %zu pieces", nblocks);
    }
    for (size_t i = 0; i < nblocks; i++) {
        if (len[i] > INT_MAX) {
            free(bl); free(disp);
            return att_fail(ATT_ERUNTIME, "MPI: a piece of %zu bytes is too large", len[i]);
        }
        bl[i] = (int)len[i];
        disp[i] = (MPI_Aint)off[i];
    }
    MPI_Datatype t;
    int rc = MPI_Type_create_hindexed((int)nblocks, bl, disp, MPI_BYTE, &t);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Bcast(base, 1, t, root, MPI_COMM_WORLD);
        MPI_Type_free(&t);
    }
    free(bl);
    free(disp);
    if (rc != MPI_SUCCESS) mpi_failed("Bcast of Monte Carlo results");
    return ATT_OK;
}

int par_test_env(const char *name)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0') return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v >= 0 && v < INT_MAX ? (int)v : -1;
}

#else /* the plain build: one process */

int par_init(int *argc, char ***argv) { (void)argc; (void)argv; return ATT_OK; }
int par_rank(void) { return 0; }
int par_size(void) { return 1; }
int par_enabled(void) { return 0; }
void par_set_name(const char *id) { (void)id; }
void par_abort(int code) { exit(code); }
int par_agree_keyed(int status, int site, unsigned long long key)
{
    (void)site; (void)key;
    return status;
}
int par_agree(int status, int site) { (void)site; return status; }
int par_bcast_pieces(void *base, const size_t *off, const size_t *len, size_t nblocks, int root)
{
    (void)base; (void)off; (void)len; (void)nblocks; (void)root;
    return ATT_OK;
}
int par_test_env(const char *name) { (void)name; return -1; }

#endif

int par_is_root(void) { return par_rank() == 0; }

static int run_begun;

/* The run frame of every program (par.h), in one process as under MPI. */
void par_run_begin(const char *id)
{
    par_set_name(id);
    if (run_begun) return;
    run_begun = 1;
    afile_hold();
    if (par_init(NULL, NULL) != ATT_OK || par_size() == 1) return;
    if (!par_is_root()) {
        afile_discard();
        if (freopen("/dev/null", "w", stdout) == NULL) { /* stdout stays; nothing to do */ }
    }
}

int par_run_end(int status)
{
    if (!run_begun) return status;
    run_begun = 0;
    /* a run writes all its files or none (ATT_HELP and errors: none) */
    if (par_size() == 1) {
        int keep = status == ATT_OK || status == ATT_FAIL;
        int rel = afile_release(keep);
        return keep && rel != ATT_OK ? rel : status;
    }
    int st = par_agree(status, PAR_SITE_END);
    int keep = st == ATT_OK || st == ATT_FAIL;
    int rel = afile_release(keep);
    return par_agree(keep && rel != ATT_OK ? rel : st, PAR_SITE_RELEASED);
}

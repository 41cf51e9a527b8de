#!/usr/bin/env python3
"""grade.py - grade a student's section_4_2.py against the suite's C head.

    python3 exercises/grade.py STUDENT.py [--json FILE] [--seed N] [--test NAME]...
    make grade FILE=STUDENT.py [GRADE_ARGS="--json results.json"]

The student's file is imported in a separate process (one per test) with a
time limit, memory, CPU and file-size limits, no inherited file descriptors
(only its stdin, stdout and stderr pipes), a fresh temporary working folder,
a minimal environment, and (when the grader runs as root, as course
autograders do) the uid of "nobody". Inside that process an audit hook
refuses writes outside the folder, new processes (fork, exec, subprocess,
os.system), sockets and ctypes. The child only returns what the student's
functions returned; every comparison is made here, against bin/shapes and
bin/attention run on the same inputs.

This program needs no NumPy itself; the child needs an interpreter that has
it: $ATT_PYTHON, then this interpreter, then /usr/bin/python3, then python3
on PATH, the first that imports numpy (the table's header names it).

Exit status: 0 every test passed, 1 some test failed, 2 bad usage (no such
file, unknown test), 3 the grader itself failed (bin/ not built, a C tool
failed on the grader's own inputs).
"""
import argparse
import json
import math
import os
import random
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EPS = sys.float_info.epsilon

# ---- the points of each test (one small table) ------------------------------
POINTS = [
    # name                    points  function tested
    ("shapes.random",          2, "attention_shapes"),
    ("shapes.gpt2",            1, "attention_shapes"),
    ("prev_token.small",       2, "previous_token_head"),
    ("prev_token.large",       2, "previous_token_head"),
    ("fused.single",           2, "fused_self_attention"),
    ("fused.batched",          1, "fused_self_attention"),
]

SHAPE_NAMES = ["X_q", "X_kv", "W_Q", "W_K", "W_V", "Q", "K", "V", "S", "A", "O"]
WHAT = {  # each shape, in the section's words, for the messages
    "X_q": "queries come from X_q: one row per query", "X_kv": "keys and values come from X_kv",
    "W_Q": "a weight has no T and no B: (d, d_k)", "W_K": "queries and keys share d_k: (d, d_k)",
    "W_V": "values have their own width d_v: (d, d_v)", "Q": "Q = X_q W_Q", "K": "K = X_kv W_K",
    "V": "V = X_kv W_V", "S": "one row per query, one column per key",
    "A": "softmax keeps the shape of S", "O": "one row per query, d_v wide: T_k disappears",
}


class GraderError(Exception):
    """The grader itself cannot go on (exit 3)."""


# ---- the child: runs the student's functions, nothing else -------------------
RUNNER = r'''
import importlib.util, json, os, sys
req = json.loads(sys.stdin.read())
out_fd = os.dup(1)                    # the result channel
so = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.dup2(so, 1)                        # the student's stdout goes to a file we inspect
os.close(so)
import numpy as np
FOLDER = os.path.realpath(os.getcwd())

def inside(p):
    try:
        p = os.fsdecode(p) if not isinstance(p, int) else None
    except Exception:
        return False
    if p is None:
        return True                   # an fd already open
    r = os.path.realpath(os.path.join(FOLDER, p))
    return r == FOLDER or r.startswith(FOLDER + os.sep)

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
               "os.link", "os.symlink", "os.truncate", "os.utime", "shutil.rmtree",
               "shutil.copyfile", "shutil.move", "os.replace"}
DENY = {"os.fork": "start a process (os.fork)", "os.forkpty": "start a process (os.forkpty)",
        "os.exec": "run a program (os.exec*)", "os.posix_spawn": "start a process (posix_spawn)",
        "os.spawn": "start a process (os.spawn*)", "os.system": "run a shell command (os.system)",
        "subprocess.Popen": "start a process (subprocess)", "os.kill": "send a signal (os.kill)",
        "os.killpg": "send a signal (os.killpg)", "socket.connect": "open a network connection",
        "socket.bind": "open a network socket", "ctypes.dlopen": "load a C library (ctypes)",
        "ctypes.dlsym": "call C code (ctypes)", "ctypes.cdata": "touch raw memory (ctypes)",
        "ctypes.call_function": "call C code (ctypes)", "ctypes.string_at": "read raw memory (ctypes)",
        "signal.pthread_kill": "send a signal", "os.chdir": "leave its working folder (os.chdir)",
        "os.setuid": "change its user", "os.setreuid": "change its user"}
# modules that start processes without an audited call (not yet loaded: denied)
DENY_IMPORT = {"_posixsubprocess": "start a process (_posixsubprocess)",
               "_ctypes": "load C code (ctypes)", "_socket": "open network sockets"}

def hook(event, args):
    if event == "import" and args and args[0] in DENY_IMPORT:
        raise PermissionError("the grader does not allow a student's file to " + DENY_IMPORT[args[0]])
    if event in DENY:
        raise PermissionError("the grader does not allow a student's file to " + DENY[event])
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        w = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
            (isinstance(flags, int) and flags & WRITE_FLAGS)
        if w and not inside(path):
            raise PermissionError("the grader does not allow writing outside the working "
                                  "folder: %r" % (path,))
    elif event in PATH_EVENTS:
        for a in args[:2]:
            if isinstance(a, (str, bytes, os.PathLike)) and not inside(a):
                raise PermissionError("the grader does not allow changing files outside the "
                                      "working folder (%s %r)" % (event, a))

def enc(v, depth=0):
    if depth > 6:
        return {"type": "deep"}
    if isinstance(v, np.ndarray):
        if v.size > 2000000:
            return {"type": "ndarray", "shape": list(v.shape), "dtype": str(v.dtype), "big": True}
        try:
            data = v.astype(float).ravel().tolist()
        except Exception:
            return {"type": "ndarray", "shape": list(v.shape), "dtype": str(v.dtype)}
        return {"type": "ndarray", "shape": list(v.shape), "dtype": str(v.dtype), "data": data}
    if isinstance(v, (bool, np.bool_)):
        return {"type": "bool", "value": bool(v)}
    if isinstance(v, (int, np.integer)):
        return {"type": "int", "value": int(v)}
    if isinstance(v, (float, np.floating)):
        return {"type": "float", "value": float(v)}
    if isinstance(v, (tuple, list)):
        return {"type": type(v).__name__, "items": [enc(x, depth + 1) for x in v[:1000]]}
    if isinstance(v, dict):
        return {"type": "dict", "items": [[str(k), enc(x, depth + 1)] for k, x in list(v.items())[:100]]}
    return {"type": type(v).__name__}

def dec(a):
    if isinstance(a, dict) and "nd" in a:
        return np.array(a["data"], dtype=float).reshape(a["nd"])
    return a

def why(e):
    if isinstance(e, SystemExit):
        return "called sys.exit(%r)" % (e.code,)
    if isinstance(e, KeyboardInterrupt):
        return "raised KeyboardInterrupt"
    if isinstance(e, MemoryError):
        return "ran out of memory (MemoryError)"
    import traceback
    tb = traceback.extract_tb(e.__traceback__)
    where = ""
    for fr in reversed(tb):
        if os.path.basename(fr.filename) == "student.py":
            where = " (student.py line %d: %s)" % (fr.lineno, (fr.line or "").strip()[:80])
            break
    alone = (" -- only this one file is graded, alone: put your helpers in it"
             if isinstance(e, ModuleNotFoundError) and e.name not in ("numpy",) else "")
    return "raised %s: %s%s%s" % (type(e).__name__, str(e)[:300], where, alone)

res = {"import": None, "missing": False, "calls": []}
sys.addaudithook(hook)
try:
    spec = importlib.util.spec_from_file_location("student", "student.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
except BaseException as e:
    res["import"] = why(e)
if res["import"] is None:
    f = getattr(mod, req["func"], None)
    if not callable(f):
        res["missing"] = True
    else:
        for args in req["calls"]:
            try:
                res["calls"].append({"value": enc(f(*[dec(a) for a in args]))})
            except BaseException as e:
                res["calls"].append({"error": why(e)})
try:
    sys.stdout.flush()
except BaseException:
    pass
try:
    with open("stdout.txt", "rb") as fh:
        res["stdout"] = fh.read(200).decode("utf-8", "replace")
except BaseException:
    res["stdout"] = ""
data = json.dumps(res).encode()
while data:
    data = data[os.write(out_fd, data):]
os._exit(0)
'''


def find_python():
    """The first interpreter that imports numpy: (path, numpy version)."""
    cands = [os.environ.get("ATT_PYTHON"), sys.executable, "/usr/bin/python3",
             shutil.which("python3")]
    seen = set()
    for c in cands:
        if not c or c in seen or not os.access(c, os.X_OK):
            continue
        seen.add(c)
        try:
            p = subprocess.run([c, "-I", "-c", "import numpy; print(numpy.__version__)"],
                               capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if p.returncode == 0:
            return c, p.stdout.strip()
    raise GraderError("no Python with NumPy found (tried $ATT_PYTHON, %s, /usr/bin/python3, "
                      "python3 on PATH): apt-get install python3-numpy, or set ATT_PYTHON"
                      % sys.executable)


class Sandbox:
    """Runs one function of the student's file on a list of argument lists."""

    def __init__(self, python, student, timeout, memory):
        self.python, self.student = python, student
        self.timeout, self.memory = timeout, memory
        self.as_nobody = os.geteuid() == 0

    def _limits(self):
        resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
        cpu = int(math.ceil(self.timeout)) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 20, 16 << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        if self.as_nobody:              # RLIMIT_NPROC counts per user: nobody has none
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            resource.setrlimit(resource.RLIMIT_NPROC, (8, 8))

    def run(self, func, calls):
        """(result dict, None) or (None, why the child gave no result)."""
        folder = tempfile.mkdtemp(prefix="grade-student-")
        try:
            shutil.copyfile(self.student, os.path.join(folder, "student.py"))
            if self.as_nobody:
                os.chmod(folder, 0o700)
                for p in (folder, os.path.join(folder, "student.py")):
                    os.chown(p, 65534, 65534)
            env = {"PATH": "/usr/bin:/bin", "HOME": folder, "TMPDIR": folder, "LC_ALL": "C.UTF-8",
                   "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            req = json.dumps({"func": func, "calls": calls}).encode()
            return self._communicate(folder, env, req)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _communicate(self, folder, env, req):
        cap = 64 << 20
        p = subprocess.Popen([self.python, "-I", "-B", "-c", RUNNER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=folder, env=env,
                             close_fds=True, start_new_session=True, preexec_fn=self._limits)
        try:
            p.stdin.write(req)
            p.stdin.close()
        except BrokenPipeError:
            pass
        bufs = {p.stdout: bytearray(), p.stderr: bytearray()}
        sel = selectors.DefaultSelector()
        for f in bufs:
            sel.register(f, selectors.EVENT_READ)
        deadline, why = time.monotonic() + self.timeout, None
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                why = ("did not finish within %g s (an infinite loop, or far too slow?)"
                       % self.timeout)
                break
            for key, _ in sel.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fileobj.fileno(), 1 << 16)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                bufs[key.fileobj] += chunk
                if len(bufs[key.fileobj]) > cap:
                    why = "wrote more than 64 MiB to the grader's pipes"
            if why:
                break
        sel.close()
        if why:
            self._kill(p)
        try:
            rc = p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._kill(p)
            rc = p.wait()
        self._kill(p)                   # anything left in its session
        p.stdout.close()
        p.stderr.close()
        if why:
            return None, why
        err = bufs[p.stderr].decode("utf-8", "replace").strip()
        try:
            return json.loads(bufs[p.stdout].decode("utf-8")), None
        except ValueError:
            pass
        if rc < 0:
            sig = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
            hint = {"SIGXCPU": " (the CPU time limit)", "SIGKILL": " (a limit, or memory)",
                    "SIGSEGV": " (a crash)"}.get(sig, "")
            return None, "was killed by %s%s before it returned" % (sig, hint)
        last = err.splitlines()[-1][:300] if err else ""
        return None, ("ended its process (exit status %d) before returning anything: os._exit, "
                      "or a crash%s" % (rc, (": " + last) if last else ""))

    @staticmethod
    def _kill(p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# ---- values the child returned ------------------------------------------------

def kind(v):
    """A student value's type in Python's words."""
    if v["type"] == "ndarray":
        return "a NumPy array of shape %s (dtype %s)" % (tuple(v["shape"]), v["dtype"])
    return "a " + v["type"]


def as_array(v, what):
    """(shape, flat list) of an array-like value, or raise Wrong."""
    if v["type"] == "ndarray":
        if v.get("big"):
            raise Wrong("%s is %s: far larger than expected" % (what, kind(v)))
        if "data" not in v:
            raise Wrong("%s is %s, not numbers" % (what, kind(v)))
        return tuple(v["shape"]), v["data"]
    raise Wrong("%s is %s, not a NumPy array" % (what, kind(v)))


class Wrong(Exception):
    """The student's answer is wrong: the message says how."""


def call_values(box, func, calls):
    """The student's return values, one per call, or raise Wrong."""
    res, why = box.run(func, calls)
    if res is not None:                 # the child knows the file as student.py
        name = os.path.basename(box.student)
        for k in ("import",):
            if res.get(k):
                res[k] = res[k].replace("student.py", name)
        for c in res.get("calls", []):
            if "error" in c:
                c["error"] = c["error"].replace("student.py", name)
    if res is None:
        raise Wrong("your file " + why)
    if res.get("import"):
        raise Wrong("importing your file " + res["import"])
    if res.get("stdout"):
        raise Wrong("your file printed on stdout (%r...): remove the print calls; the grader "
                    "reads stdout" % res["stdout"][:60])
    if res.get("missing"):
        raise Wrong("your file has no function %s()" % func)
    return [Answer(func, c) for c in res["calls"]]


class Answer:
    """One call's outcome; .get(at) is the value, or raises Wrong for an exception."""

    def __init__(self, func, c):
        self.func, self.c = func, c

    def get(self, at, hint=None):
        if "error" in self.c:
            msg = self.c["error"]
            if "NotImplementedError" in msg:
                msg += " -- the starter's stub: write the function"
            elif hint and hint[0] in msg:
                msg += "\n  " + hint[1]
            raise Wrong("%s %s" % (at, msg))
        return self.c["value"]


# ---- the C reference ------------------------------------------------------------

class C:
    def __init__(self, bindir, work):
        self.bindir, self.work, self.n = bindir, work, 0
        for exe in ("shapes", "attention"):
            if not os.access(os.path.join(bindir, exe), os.X_OK):
                raise GraderError("%s/%s not found: build the suite first (make)" % (bindir, exe))

    def run(self, exe, args):
        """(exit status, stderr) of bin/<exe> args."""
        cmd = [os.path.join(self.bindir, exe)] + [str(a) for a in args]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
        except subprocess.TimeoutExpired:
            raise GraderError("%s did not finish in 120 s" % " ".join(cmd))
        return p.returncode, p.stderr.strip()

    def folder(self):
        self.n += 1
        d = os.path.join(self.work, "run%d" % self.n)
        os.mkdir(d)
        return d

    def shapes(self, B, T_q, T_k, d, d_k, d_v):
        """{name: tuple} and the parameter count, from bin/shapes."""
        out = self.folder()
        rc, err = self.run("shapes", ["--B", B, "--Tq", T_q, "--Tk", T_k, "--d", d, "--dk", d_k,
                                      "--dv", d_v, "--out", out, "--quiet"])
        if rc != 0:
            raise GraderError("bin/shapes failed (exit %d): %s" % (rc, err))
        shapes, params = {}, None
        with open(os.path.join(out, "shapes_sizes.csv")) as f:
            head = f.readline().strip().split(",")
            for line in f:
                r = dict(zip(head, line.strip().split(",")))
                dims = (int(r["dim0"]), int(r["dim1"]), int(r["dim2"]))[:int(r["rank"])]
                if r["name"] == "params":
                    params = int(r["dim0"])
                else:
                    shapes[r["name"]] = dims
        return shapes, params

    def attention(self, files, extra):
        """(exit status, stderr, {name: rows}) of bin/attention on the given CSVs."""
        out = self.folder()
        args = []
        for opt, (name, rows) in files.items():
            path = os.path.join(out, name)
            write_csv(path, rows)
            args += ["--" + opt, path]
        rc, err = self.run("attention", args + extra + ["--out", out, "--quiet"])
        mats = {}
        if rc == 0:
            for m in ("A", "O", "S"):
                mats[m] = read_csv(os.path.join(out, m + ".csv"))
        return rc, err, mats


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("# written by exercises/grade.py\n")
        for r in rows:
            f.write(",".join(repr(float(x)) for x in r) + "\n")


def read_csv(path):
    with open(path) as f:
        return [[float(c) for c in l.split(",")] for l in f if l.strip() and not l.startswith("#")]


def rows_of(shape, flat):
    """A 2-D list from a (r, c) shape and its flat data."""
    r, c = shape
    return [flat[i * c:(i + 1) * c] for i in range(r)]


def randmat(rng, r, c, sd):
    return [[rng.gauss(0.0, sd) for _ in range(c)] for _ in range(r)]


def nd(rows_or_3d, shape):
    flat = []
    def walk(x):
        if isinstance(x, list):
            for y in x:
                walk(y)
        else:
            flat.append(x)
    walk(rows_or_3d)
    return {"nd": list(shape), "data": flat}


# ---- exercise 1: attention_shapes -----------------------------------------------

def shape_of(v, name):
    """A returned shape as a tuple of ints, or raise Wrong."""
    if v["type"] not in ("tuple", "list"):
        raise Wrong("%r is %s; the starter asks for a tuple of ints" % (name, kind(v)))
    dims = []
    for x in v["items"]:
        if x["type"] != "int":
            raise Wrong("%r holds %s; every entry of a shape is an int" % (name, kind(x)))
        dims.append(x["value"])
    return tuple(dims)


def check_shapes(value, case, want, params):
    """Compare one returned dict with bin/shapes' table."""
    B, T_q, T_k, d, d_k, d_v = case
    call = "attention_shapes(B=%d, T_q=%d, T_k=%d, d=%d, d_k=%d, d_v=%d)" % case
    if value["type"] != "dict":
        raise Wrong("%s returned %s; the starter asks for a dict of shapes" % (call, kind(value)))
    got = dict(value["items"])
    for name in SHAPE_NAMES:
        if name not in got:
            raise Wrong("%s: the dict has no key %r (keys: %s)" % (call, name, ", ".join(sorted(got)) or "none"))
        s = shape_of(got[name], name)
        if s != want[name]:
            raise Wrong("%s: %s is %s, expected %s (bin/shapes): %s" %
                        (call, name, s, want[name], WHAT[name]))
    if "params" not in got:
        raise Wrong("%s: the dict has no key 'params' (the weights in W_Q, W_K, W_V)" % call)
    p = got["params"]
    if p["type"] != "int":
        raise Wrong("%s: 'params' is %s, not an int" % (call, kind(p)))
    if p["value"] != params:
        raise Wrong("%s: 'params' is %d, expected %s = d (2 d_k + d_v) = %d x (2 x %d + %d): W_Q, "
                    "W_K (d, d_k) and W_V (d, d_v), no biases, no W_O" %
                    (call, p["value"], "{:,}".format(params), d, d_k, d_v))


def test_shapes_random(ctx, rng):
    cases = []
    for i in range(6):
        B = rng.randint(1, 6)
        T_q = rng.randint(1, 40)
        T_k = T_q if i == 0 else rng.choice([x for x in range(1, 41) if x != T_q])
        d = rng.randint(1, 96)
        d_k = rng.randint(1, 24)
        d_v = d_k if i == 0 else rng.choice([x for x in range(1, 25) if x != d_k])
        cases.append((B, T_q, T_k, d, d_k, d_v))
    values = call_values(ctx.box, "attention_shapes", [list(c) for c in cases])
    for c, v in zip(cases, values):
        want, params = ctx.c.shapes(*c)
        check_shapes(v.get("attention_shapes(B=%d, T_q=%d, T_k=%d, d=%d, d_k=%d, d_v=%d)" % c),
                     c, want, params)
    return ("%d random sizes (self-attention, then T_q != T_k and d_v != d_k) agree with bin/shapes"
            % len(cases))


def test_shapes_gpt2(ctx, rng):
    case = (1, 1024, 1024, 768, 64, 64)
    v, = call_values(ctx.box, "attention_shapes", [list(case)])
    want, params = ctx.c.shapes(*case)
    check_shapes(v.get("attention_shapes(B=%d, T_q=%d, T_k=%d, d=%d, d_k=%d, d_v=%d)" % case),
                 case, want, params)
    return "GPT-2's head: every shape, and 3 x 768 x 64 = 147,456 projection weights"


# ---- exercise 2: previous_token_head (Exercise 4.2b) ------------------------------

def prev_token_sizes(name):
    return [(2, 3), (5, 8), (10, 16)] if name == "small" else [(50, 64), (200, 128)]


def check_prev_token(ctx, rng, sizes):
    values = call_values(ctx.box, "previous_token_head", [[n, T] for n, T in sizes])
    lines = []
    for (n_vocab, T), answer in zip(sizes, values):
        d = n_vocab + T
        at = "previous_token_head(n_vocab=%d, T=%d)" % (n_vocab, T)
        v = answer.get(at)
        if v["type"] not in ("tuple", "list") or len(v["items"]) != 3:
            raise Wrong("%s returned %s; expected the three arrays (W_Q, W_K, W_V)" % (at, kind(v)))
        W = []
        for name, item, want in zip(("W_Q", "W_K", "W_V"), v["items"], ((d, T), (d, T), (d, n_vocab))):
            shape, flat = as_array(item, at + "'s " + name)
            if shape != want:
                hint = " (transposed?)" if shape == want[::-1] else ""
                raise Wrong("%s: %s is %s, expected %s with d = n_vocab + T = %d%s" %
                            (at, name, shape, want, d, hint))
            bad = [x for x in flat if not math.isfinite(x)]
            if bad:
                raise Wrong("%s: %s holds %r: every weight must be a finite number" % (at, name, bad[0]))
            W.append(rows_of(shape, flat))
        # random token sequences; x_t = [one-hot token ; one-hot position]
        S = 4
        toks = [[rng.randrange(n_vocab) for _ in range(T)] for _ in range(S)]
        X = []
        for seq in toks:
            for t, tok in enumerate(seq):
                row = [0.0] * d
                row[tok] = 1.0
                row[n_vocab + t] = 1.0
                X.append(row)
        rc, err, m = ctx.c.attention({"x": ("X.csv", X), "wq": ("W_Q.csv", W[0]),
                                      "wk": ("W_K.csv", W[1]), "wv": ("W_V.csv", W[2])},
                                     ["--batch", S])
        if rc != 0:
            raise Wrong("%s: bin/attention refused these weights: %s" % (at, err))
        A, O = m["A"], m["O"]
        correct, weights, first = 0, [], None
        for s, seq in enumerate(toks):
            for t in range(1, T):
                a, o = A[s * T + t], O[s * T + t]
                w, want = a[t - 1], seq[t - 1]
                ok = all(o[want] > o[j] for j in range(n_vocab) if j != want)
                correct += ok
                weights.append(w)
                if (not ok or w <= 0.5) and first is None:
                    j = max(range(T), key=lambda k: a[k])
                    if max(a) - min(a) <= 1e-12:
                        spread = ("the weights are uniform, 1/T = %.4g each (all-zero weights attend "
                                  "uniformly: the starter's placeholder)" % a[0])
                    elif w > 0.5:
                        spread = ("the weight on t - 1 is right, but the output is not token(t-1): "
                                  "the value must deliver the token part of x_j")
                    elif j == t - 1:
                        spread = ("t - 1 has the largest weight but not most of it: the lookup is too "
                                  "soft for T = %d" % T)
                    else:
                        spread = "its largest weight, %.4g, is on %s" % (a[j], (
                            "itself (t): a head attending to itself" if j == t else
                            "t - 2 (off by one)" if j == t - 2 else
                            "t + 1 (off by one: the next position)" if j == t + 1 else
                            "position %d" % j))
                    first = ("first failure: sequence %d, t = %d: weight %.4g on t - 1 (needs > 0.5); "
                             "%s; o_t's argmax is token %d, token(t-1) is %d" %
                             (s + 1, t, w, spread, max(range(n_vocab), key=lambda k: o[k]), want))
        total = S * (T - 1)
        line = ("n_vocab=%d, T=%d: accuracy %.1f%% (%d of %d positions t >= 1 output token(t-1)); "
                "weight on t - 1: min %.4g, mean %.4g" % (n_vocab, T, 100.0 * correct / total,
                                                          correct, total, min(weights),
                                                          sum(weights) / total))
        if first:
            raise Wrong("\n".join(lines + [line, first]))
        lines.append(line)
    return "\n".join(lines)


def test_prev_small(ctx, rng):
    return check_prev_token(ctx, rng, prev_token_sizes("small"))


def test_prev_large(ctx, rng):
    return check_prev_token(ctx, rng, prev_token_sizes("large"))


# ---- exercise 3: fused_self_attention ------------------------------------------------

def fused_cases(rng, batched):
    cases = []
    for i in range(4):
        B = rng.randint(2, 4) if batched else None
        if i == 0:
            d_k = rng.randint(1, 3)
            d = 3 * d_k          # square W_qkv: X @ W_qkv.T runs, and must be caught
        else:
            d_k = rng.randint(1, 5)
            d = rng.choice([x for x in range(2, 13) if x != 3 * d_k])
        T = rng.randint(1, 7) if i else rng.randint(3, 7)
        while True:             # away from 1 and 1/sqrt(d_k): a missing scale shows
            scale = round(rng.uniform(0.2, 2.5), 3)
            if abs(scale - 1) > 0.15 and abs(scale - 1 / math.sqrt(d_k)) > 0.15:
                break
        rows = (B or 1) * T
        X = randmat(rng, rows, d, 1.0)
        W = randmat(rng, d, 3 * d_k, 1.0 / math.sqrt(d) * 1.5)
        cases.append({"B": B, "T": T, "d": d, "d_k": d_k, "scale": scale, "X": X, "W": W})
    return cases


def fused_reference(ctx, c, W=None, scale=None, torch=False):
    """bin/attention --wqkv on the case (or a variant of it): O as flat rows."""
    extra = ["--scale", repr(c["scale"] if scale is None else scale)]
    if c["B"]:
        extra += ["--batch", c["B"]]
    if torch:
        extra += ["--torch-layout"]
    rc, err, m = ctx.c.attention({"x": ("X.csv", c["X"]), "wqkv": ("W_qkv.csv", W or c["W"])}, extra)
    if rc != 0:
        raise GraderError("bin/attention failed on the grader's own inputs (exit %d): %s" % (rc, err))
    return [x for r in m["O"] for x in r]


def rel_err(got, want):
    top = max([abs(x) for x in want] + [1e-300])
    return max(abs(g - w) for g, w in zip(got, want)) / top


def diagnose(ctx, c, got, tol):
    """The known mistake that reproduces the student's numbers, if any."""
    d_k = c["d_k"]
    tries = []
    if c["d"] == 3 * d_k:
        tries.append(("your function multiplies by W_qkv transposed (X @ W_qkv.T, PyTorch's nn.Linear "
                      "layout, a (3 d_k, d) weight); the section's W_qkv is (d, 3 d_k): QKV = X @ W_qkv",
                      dict(torch=True)))
    tries.append(("your function ignores the scale (it matches scale = 1): S = scale * Q K^T",
                  dict(scale=1.0)))
    tries.append(("your function uses 1/sqrt(d_k) instead of the scale it is given",
                  dict(scale=1.0 / math.sqrt(d_k))))
    names = "QKV"
    for perm in ((1, 0, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0), (2, 0, 1)):
        W = [sum((r[b * d_k:(b + 1) * d_k] for b in perm), []) for r in c["W"]]
        tries.append(("your split order is wrong: you take %s as Q, K, V; W_qkv = [W_Q | W_K | W_V], "
                      "so Q is the first d_k columns, K the next, V the last" %
                      ", ".join("block %d (%s)" % (b + 1, names[b]) for b in perm), dict(W=W)))
    for msg, kw in tries:
        if rel_err(got, fused_reference(ctx, c, **kw)) <= tol:
            return msg
    return None


def check_fused(ctx, rng, batched):
    cases = fused_cases(rng, batched)
    calls = []
    for c in cases:
        shape = (c["B"], c["T"], c["d"]) if batched else (c["T"], c["d"])
        calls.append([nd(c["X"], shape), nd(c["W"], (c["d"], 3 * c["d_k"])), c["scale"]])
    values = call_values(ctx.box, "fused_self_attention", calls)
    worst = 0.0
    for c, answer in zip(cases, values):
        B, T, d, d_k = c["B"], c["T"], c["d"], c["d_k"]
        at = ("fused_self_attention(X %s, W_qkv (%d, %d), scale=%g)" %
              ((B, T, d) if batched else (T, d), d, 3 * d_k, c["scale"]))
        v = answer.get(at, ("matmul", "X is (..., T, d) and W_qkv is (d, 3 d_k): QKV = X @ W_qkv. "
                            "X @ W_qkv.T is PyTorch's nn.Linear convention, for a (3 d_k, d) weight"))
        want_shape = (B, T, d_k) if batched else (T, d_k)
        try:
            shape, flat = as_array(v, at + "'s result")
        except Wrong as e:
            raise Wrong(str(e) + "; expected O of shape %s" % (want_shape,))
        if shape != want_shape:
            raise Wrong("%s returned shape %s, expected %s: one row per token, d_k = W_qkv.shape[1] "
                        "// 3 columns%s" % (at, shape, want_shape,
                                            ", the batch axis first" if batched else ""))
        bad = [i for i, x in enumerate(flat) if not math.isfinite(x)]
        if bad:
            raise Wrong("%s: entry %s of O is %r" % (at, unravel(bad[0], shape), flat[bad[0]]))
        ref = fused_reference(ctx, c)
        # sums of d (projection), d_k (scores) and T (weighted sum) terms
        tol = 64.0 * (d + d_k + T) * EPS
        err = rel_err(flat, ref)
        worst = max(worst, err)
        if err > tol:
            i = max(range(len(flat)), key=lambda k: abs(flat[k] - ref[k]))
            msg = ("%s: relative error %.3g > tolerance %.3g = 64 (d + d_k + T) eps; largest "
                   "difference at %s: you returned %.17g, bin/attention --wqkv gives %.17g" %
                   (at, err, tol, unravel(i, shape), flat[i], ref[i]))
            hint = diagnose(ctx, c, flat, max(tol, 1e-9 if "float32" in v["dtype"] else tol))
            if v["dtype"] != "float64":
                hint = (hint + "; " if hint else "") + "compute in float64 (your dtype is %s)" % v["dtype"]
            raise Wrong(msg + ("\n  " + hint if hint else ""))
    return ("%d %s cases (one with a square W_qkv) agree with bin/attention --wqkv to %.2g "
            "(relative)" % (len(cases), "batched (B, T, d)" if batched else "single (T, d)", worst))


def unravel(i, shape):
    idx = []
    for s in reversed(shape):
        idx.append(i % s)
        i //= s
    return "[" + ", ".join(str(x) for x in reversed(idx)) + "]"


def test_fused_single(ctx, rng):
    return check_fused(ctx, rng, False)


def test_fused_batched(ctx, rng):
    return check_fused(ctx, rng, True)


TESTS = {"shapes.random": test_shapes_random, "shapes.gpt2": test_shapes_gpt2,
         "prev_token.small": test_prev_small, "prev_token.large": test_prev_large,
         "fused.single": test_fused_single, "fused.batched": test_fused_batched}


# ---- the run ------------------------------------------------------------------------

class Ctx:
    pass


def write_json(path, results, total, maximum, header):
    doc = {"score": total, "output": "%s: %d of %d points" % (header, total, maximum),
           "tests": [{"name": n, "score": s, "max_score": m, "output": o}
                     for n, s, m, o in results]}
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".results-", dir=d)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def grade_one(a, path, json_path, python, npver):
    """Grade one file: print its table; 0 full marks, 1 some test failed, 3 grader error."""
    work = tempfile.mkdtemp(prefix="grade-ref-")
    results, maximum = [], sum(p for n, p, _ in POINTS if not a.test or n in a.test)
    header = "grade.py %s   seed %d   python %s (NumPy %s)" % (path, a.seed, python, npver)
    try:
        ctx = Ctx()
        ctx.c = C(a.bin, work)
        ctx.box = Sandbox(python, path, a.timeout, a.memory << 20)
        print(header)
        print("%-18s %-7s %s" % ("test", "points", "result"))
        for name, pts, func in POINTS:
            if a.test and name not in a.test:
                continue
            rng = random.Random("%d:%s" % (a.seed, name))
            try:
                out, score = TESTS[name](ctx, rng), pts
            except Wrong as e:
                replay = "python3 exercises/grade.py %s --seed %d --test %s" % (path, a.seed, name)
                out, score = "%s\nreplay: %s" % (e, replay), 0
            results.append((name, score, pts, out))
            first, _, rest = out.partition("\n")
            print("%-18s %d/%-5d %s  %s" % (name, score, pts, "PASS" if score == pts else "FAIL", first))
            for l in rest.splitlines():
                print("%-26s %s" % ("", l))
            sys.stdout.flush()
    except (GraderError, OSError) as e:
        print("grade.py: %s: %s" % (path, e), file=sys.stderr)
        if json_path:
            write_json(json_path, results, 0, maximum, "grader error: %s" % e)
        return 3, 0, maximum
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(r[1] for r in results)
    print("total %d/%d" % (total, maximum))
    if json_path:
        write_json(json_path, results, total, maximum, header)
    return (0 if total == maximum else 1), total, maximum


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="grade.py", description="Grade a student's section_4_2.py (attention_shapes, "
        "previous_token_head, fused_self_attention) against the suite's C head. Given a folder, "
        "grade every *.py in it and end with one line per submission.",
        epilog="exit status: 0 every test passed (every submission, for a folder), 1 some test "
               "failed, 2 bad usage, 3 the grader failed (e.g. bin/ not built)")
    ap.add_argument("file", help="the student's Python file, or a folder of submissions (*.py)")
    ap.add_argument("--json", metavar="PATH", help="also write Gradescope's results.json form "
                    "(for a folder: PATH is a folder, one <name>.json per submission)")
    ap.add_argument("--seed", type=int, default=20261201, help="seed of the random cases (default 20261201)")
    ap.add_argument("--test", action="append", metavar="NAME", choices=list(TESTS),
                    help="run only this test (repeatable): " + ", ".join(TESTS))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per test (default 20)")
    ap.add_argument("--memory", type=int, default=2048, help="MiB of address space per test (default 2048)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin"), help="where bin/shapes and bin/attention are")
    a = ap.parse_args(argv)
    folder = os.path.isdir(a.file)
    if not folder and not os.path.isfile(a.file):
        print("grade.py: %s: no such file or folder" % a.file, file=sys.stderr)
        return 2
    if a.timeout <= 0 or a.memory < 256:
        print("grade.py: --timeout must be > 0 and --memory >= 256", file=sys.stderr)
        return 2
    jdir = a.json if folder else os.path.dirname(os.path.abspath(a.json)) if a.json else None
    if jdir and not os.path.isdir(jdir):
        print("grade.py: --json %s: %s is not a folder" % (a.json, jdir), file=sys.stderr)
        return 2
    try:
        python, npver = find_python()
    except GraderError as e:
        print("grade.py: %s" % e, file=sys.stderr)
        return 3
    if not folder:
        return grade_one(a, a.file, a.json, python, npver)[0]
    files = sorted(f for f in os.listdir(a.file) if f.endswith(".py"))
    if not files:
        print("grade.py: %s holds no .py file" % a.file, file=sys.stderr)
        return 2
    summary, worst = [], 0
    for f in files:
        j = os.path.join(a.json, f[:-3] + ".json") if a.json else None
        st, total, maximum = grade_one(a, os.path.join(a.file, f), j, python, npver)
        summary.append((f, total, maximum, st))
        worst = max(worst, st)
        print()
    print("%-40s %s" % ("submission", "points"))
    for f, total, maximum, st in summary:
        print("%-40s %d/%d%s" % (f, total, maximum, "   (grader error)" if st == 3 else ""))
    return worst


if __name__ == "__main__":
    sys.exit(main())

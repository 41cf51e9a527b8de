#!/usr/bin/env python3
"""grade.py - grade a student's section_4_2.py against the suite's C head.

    python3 exercises/grade.py STUDENT.py [--json FILE] [--seed N] [--test NAME]...
    python3 exercises/grade.py SUBMISSIONS/ --json GRADES/
    make grade FILE=STUDENT.py [GRADE_ARGS="--json results.json"]

Each test runs the student's file in an OS sandbox (bubblewrap): new user,
PID, network, IPC and mount namespaces, uid nobody, a read-only /usr (the
interpreter with NumPy), a private tmpfs holding only a copy of the one file,
nothing of the repository, bin/, the solutions, other submissions or the
grades; limits on CPU, memory, processes, open files and file size; a seccomp
filter (x86-64) against sockets, ptrace, mounts and namespaces. The child
only sends back what the student's functions returned, as untrusted data:
the grader checks its schema (one answer per case, types, shapes, finite
numbers) and makes every comparison itself, against bin/shapes and
bin/attention run outside the sandbox on the grader's own inputs.

Where no sandbox can be made (no bwrap, no user namespaces), the grader
refuses a file unless --trusted says it is the grader's own user's file.

This program needs no NumPy itself; the child needs an interpreter that has
it: $ATT_PYTHON, then this interpreter, then /usr/bin/python3, then python3
on PATH, the first that imports numpy (the table's header names it).
A run of many graders may find these once: $ATT_PYTHON_FOUND and
$ATT_GRADE_SANDBOX_OK (tests/grade_env.sh) skip the trial import and the
trial sandbox of each run.

Exit status: 0 every test passed, 1 some test failed, 2 bad usage (no such
file, unknown test), 3 the grader itself failed (bin/ not built, a C tool
failed on the grader's own inputs, no sandbox for an untrusted file).
"""
import argparse
import json
import math
import os
import platform
import random
import resource
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EPS = sys.float_info.epsilon
PUBLIC_SEED = 20261201

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
# argv: [result fd, limits as JSON]. stdin: the request. Its stdout and stderr are
# the grader's pipes (what the student prints arrives there, whatever it does to
# this process). The result fd gets "I\n" once the file is imported, "C\n" after
# each call, then one line of JSON; the grader trusts none of it.
RUNNER = r'''
import json, os, resource, sys
fd = int(sys.argv[1])
for name, v in json.loads(sys.argv[2]).items():
    try:
        resource.setrlimit(getattr(resource, name), (v, v))
    except (ValueError, OSError):
        pass
req = json.loads(sys.stdin.read())
nul = os.open(os.devnull, os.O_RDONLY)
os.dup2(nul, 0)
os.close(nul)
import numpy as np

def enc(v, depth=0):
    if depth > 6:
        return {"type": "deep"}
    if isinstance(v, np.ndarray):
        try:
            dt = str(v.dtype)[:40]
            a = np.array(v, dtype=np.float64, copy=True)
        except BaseException:
            return {"type": "ndarray", "shape": [], "dtype": "?"}
        if a.size > 2000000:
            return {"type": "ndarray", "shape": list(a.shape), "dtype": dt, "big": True}
        return {"type": "ndarray", "shape": list(a.shape), "dtype": dt,
                "data": a.ravel().tolist()}
    if isinstance(v, (bool, np.bool_)):
        return {"type": "bool", "value": bool(v)}
    if isinstance(v, (int, np.integer)):
        return {"type": "int", "value": int(v)}
    if isinstance(v, (float, np.floating)):
        return {"type": "float", "value": float(v)}
    if isinstance(v, (tuple, list)):
        return {"type": type(v).__name__ if type(v) in (tuple, list) else "sequence",
                "items": [enc(x, depth + 1) for x in list(v)[:1000]]}
    if isinstance(v, dict):
        return {"type": "dict", "items": [[str(k)[:100], enc(x, depth + 1)]
                                          for k, x in list(v.items())[:100]]}
    return {"type": type(v).__name__[:60]}

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

PID = os.getpid()

def send(b):
    if os.getpid() != PID:    # a process the student's code forked: it has no say
        os._exit(0)
    while b:
        b = b[os.write(fd, b):]

def run():
    res = {"import": None, "missing": False, "calls": []}
    try:
        import importlib.util
        spec = importlib.util.spec_from_file_location("student", "student.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except BaseException as e:
        res["import"] = why(e)
        return res
    send(b"I\n")
    f = getattr(mod, req["func"], None)
    if not callable(f):
        res["missing"] = True
        return res
    for c in req["calls"]:
        try:
            r = {"value": enc(f(*[dec(a) for a in c["args"]]))}
        except BaseException as e:
            r = {"error": why(e)}
            if c.get("probe"):    # the grader's variants of the arguments, tried in turn
                r["probe"] = []
                for args in c["probe"][:4]:
                    try:
                        r["probe"].append(enc(f(*[dec(a) for a in args])))
                    except BaseException:
                        r["probe"].append(None)
        res["calls"].append(r)
        send(b"C\n")
    return res

try:
    res = run()
except BaseException as e:
    res = {"import": "failed in the grader's runner: " + why(e), "missing": False, "calls": []}
try:
    sys.stdout.flush()
except BaseException:
    pass
send(json.dumps(res).encode() + b"\n")
os._exit(0)
'''


def find_python():
    """The first interpreter that imports numpy: (path, numpy version, the folders it reads).

    $ATT_PYTHON_FOUND, this function's answer as JSON for the interpreter $ATT_PYTHON names
    (the test suites find it once for a dozen grader runs), is taken without the trial
    import; the folders it names are bound read-only into the sandbox, as that
    interpreter's own would be (so it is the grader's operator's, as $ATT_PYTHON is)."""
    try:
        exe, ver, dirs = json.loads(os.environ.get("ATT_PYTHON_FOUND") or "null")
        if exe == os.path.realpath(os.environ.get("ATT_PYTHON") or "/") and \
                os.access(exe, os.X_OK) and isinstance(ver, str) and \
                all(isinstance(d, str) and d.startswith("/") for d in dirs):
            return exe, ver, sorted(dirs)
    except (ValueError, TypeError):
        pass
    cands = [os.environ.get("ATT_PYTHON"), sys.executable, "/usr/bin/python3",
             shutil.which("python3")]
    seen = set()
    probe = ("import numpy, os, sys; print(numpy.__version__); print(os.path.realpath(sys.executable)); "
             "print(os.path.realpath(sys.prefix)); print(os.path.realpath(sys.base_prefix)); "
             "print(os.path.realpath(os.path.dirname(os.path.dirname(numpy.__file__))))")
    for c in cands:
        if not c or c in seen or not os.access(c, os.X_OK):
            continue
        seen.add(c)
        try:
            p = subprocess.run([c, "-I", "-c", probe], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = p.stdout.split("\n")
        if p.returncode == 0 and len(lines) >= 5:
            exe = lines[1]
            dirs = {os.path.dirname(exe)} | set(lines[2:5])
            return exe, lines[0].strip(), sorted(d for d in dirs if d)
    raise GraderError("no Python with NumPy found (tried $ATT_PYTHON, %s, /usr/bin/python3, "
                      "python3 on PATH): apt-get install python3-numpy, or set ATT_PYTHON"
                      % sys.executable)


# ---- the sandbox ---------------------------------------------------------------

INSTALL = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap, or sh tools/deps.sh "
           "as root) on a kernel that allows user namespaces (sysctl kernel.unprivileged_userns_clone=1 "
           "or user.max_user_namespaces > 0; Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=0; "
           "in Docker, a seccomp profile that allows them)")

# x86-64 system calls the student's code has no use for, refused with EPERM
SECCOMP_DENY = {
    "socket": 41, "ptrace": 101, "syslog": 103, "mknod": 133, "personality": 135,
    "pivot_root": 155, "chroot": 161, "acct": 163, "mount": 165, "umount2": 166,
    "swapon": 167, "swapoff": 168, "reboot": 169, "iopl": 172, "ioperm": 173,
    "init_module": 175, "delete_module": 176, "quotactl": 179, "kexec_load": 246,
    "add_key": 248, "request_key": 249, "keyctl": 250, "mknodat": 259, "unshare": 272,
    "perf_event_open": 298, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313,
    "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427,
}


def seccomp_program():
    """A classic BPF seccomp filter (x86-64): deny SECCOMP_DENY, the x32 ABI and a clone
    into a new user namespace (for a bwrap without --disable-userns); clone3 says ENOSYS
    (its flags sit in memory a filter cannot read; glibc then uses clone). Allow the rest.

    Each instruction is struct sock_filter {u16 code; u8 jt, jf; u32 k}; the
    program reads struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}.
    """
    LD_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ARCH_X86_64, X32, CLONE, CLONE3, CLONE_NEWUSER = 0xC000003E, 0x40000000, 56, 435, 0x10000000
    ALLOW, KILL, EPERM, ENOSYS = 0x7FFF0000, 0x80000000, 0x00050000 | 1, 0x00050000 | 38
    nrs = sorted(SECCOMP_DENY.values())
    n = len(nrs)
    # [0..4] arch and x32; [5..5+n-1] the denied calls; then clone, clone3, ALLOW, EPERM, ENOSYS
    ins = [(LD_ABS, 0, 0, 4), (JEQ, 1, 0, ARCH_X86_64), (RET, 0, 0, KILL),
           (LD_ABS, 0, 0, 0), (JGE, n + 5, 0, X32)]
    for i, nr in enumerate(nrs):
        ins.append((JEQ, n - i + 4, 0, nr))
    ins += [(JEQ, 0, 2, CLONE),               # clone: its flags, args[0]'s low word
            (LD_ABS, 0, 0, 16), (JSET, 2, 1, CLONE_NEWUSER),
            (JEQ, 2, 0, CLONE3),
            (RET, 0, 0, ALLOW), (RET, 0, 0, EPERM), (RET, 0, 0, ENOSYS)]
    return b"".join(struct.pack("<HBBI", *x) for x in ins)


class Sandbox:
    """Runs one function of the student's file on a list of argument lists, in bwrap.

    sandbox=False runs it as a plain child process (a --trusted file where no
    sandbox can be made): limits and a private folder, no containment.
    """

    def __init__(self, python, pydirs, student, timeout, memory, budget, sandbox=True):
        self.python, self.pydirs, self.student = python, pydirs, student
        self.timeout, self.memory, self.sandbox = timeout, memory, sandbox
        self.left = budget            # seconds of the submission's total budget left
        self.budget = budget
        self.hung = None              # why the import never finished: not tried again
        self.as_nobody = os.geteuid() == 0

    def limits(self, timeout):
        cpu = int(math.ceil(timeout)) + 1
        lim = {"RLIMIT_AS": self.memory, "RLIMIT_CPU": cpu, "RLIMIT_FSIZE": 16 << 20,
               "RLIMIT_CORE": 0, "RLIMIT_NOFILE": 64}
        if self.sandbox:      # counted in the sandbox's own user namespace: its processes only
            lim["RLIMIT_NPROC"] = 32
        return lim

    def _preexec(self):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.as_nobody:    # bwrap itself runs as nobody: no root outside the namespaces
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            if not self.sandbox:
                resource.setrlimit(resource.RLIMIT_NPROC, (32, 32))

    def command(self, src_fd, runner_fd, seccomp_fd, res_fd, lim):
        py = [self.python, "-I", "-B"]
        if not self.sandbox:
            return py + ["-c", RUNNER, str(res_fd), json.dumps(lim)]
        cmd = [bwrap_path(), "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
               "--unshare-uts", "--unshare-cgroup-try"] + \
              has("--disable-userns") + \
              ["--uid", "65534", "--gid", "65534", "--die-with-parent", "--new-session"] + \
              has("--clearenv") + ["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/box",
               "--setenv", "TMPDIR", "/box", "--setenv", "LC_ALL", "C.UTF-8",
               "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
               "--setenv", "MKL_NUM_THREADS", "1", "--ro-bind", "/usr", "/usr"]
        for d in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
            p = "/" + d
            if os.path.islink(p):
                cmd += ["--symlink", os.readlink(p), p]
            elif os.path.isdir(p):
                cmd += ["--ro-bind", p, p]
        for p in ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"):
            cmd += ["--ro-bind-try", p, p]
        for d in self.pydirs:         # an interpreter outside /usr (a venv): read-only
            if d != "/usr" and not d.startswith("/usr/"):
                cmd += ["--ro-bind", d, d]
        # --size (bwrap >= 0.7) bounds the tmpfs; an older bwrap leaves it to the time limit
        size = has("--size", str(64 << 20))
        # a /proc of its own PID namespace, where the kernel lets one be mounted (not below a
        # /proc with parts masked, as in Docker or a sandbox): else none (NumPy needs none)
        proc = ["--proc", "/proc"] if SANDBOX_PROC[0] else []
        cmd += proc + ["--dev", "/dev"] + size + ["--tmpfs", "/box",
                ] + has("--perms", "0644") + ["--file", str(src_fd), "/box/student.py",
                ] + has("--perms", "0644") + ["--ro-bind-data", str(runner_fd), "/runner.py",
                "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/box"]
        if seccomp_fd is not None:
            cmd += ["--seccomp", str(seccomp_fd)]
        return cmd + py + ["/runner.py", str(res_fd), json.dumps(lim)]

    def run(self, func, calls):
        """(result, None) or (None, why the child gave no result); calls: [{"args", "probe"?}]."""
        if self.hung:
            return None, self.hung
        if self.left <= 0.05:
            return None, ("was not run: the submission's total time budget of %g s is used up "
                          "(earlier tests took it)" % self.budget)
        timeout = min(self.timeout, self.left)
        lim = self.limits(timeout)
        req = json.dumps({"func": func, "calls": calls}).encode()
        fds, folder = [], None
        try:
            res_r, res_w = os.pipe()
            fds += [res_r, res_w]
            src = os.open(self.student, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            fds.append(src)
            if self.sandbox:
                runner_fd = memfd(RUNNER.encode(), "runner")
                fds.append(runner_fd)
                seccomp_fd = None
                if platform.machine() in ("x86_64", "AMD64"):
                    seccomp_fd = memfd(seccomp_program(), "seccomp")
                    fds.append(seccomp_fd)
                cwd, env = "/", {"PATH": "/usr/bin:/bin"}
                cmd = self.command(src, runner_fd, seccomp_fd, res_w, lim)
                keep = tuple(f for f in fds if f not in (res_r,))
            else:
                folder = tempfile.mkdtemp(prefix="grade-student-")
                shutil.copyfile(self.student, os.path.join(folder, "student.py"))
                if self.as_nobody:
                    os.chmod(folder, 0o700)
                    for p in (folder, os.path.join(folder, "student.py")):
                        os.chown(p, 65534, 65534)
                cwd = folder
                env = {"PATH": "/usr/bin:/bin", "HOME": folder, "TMPDIR": folder,
                       "LC_ALL": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
                cmd = self.command(src, None, None, res_w, lim)
                keep = (res_w,)
            start = time.monotonic()
            try:
                return self._communicate(cmd, cwd, env, keep, res_r, res_w, req, timeout,
                                         len(calls))
            finally:
                self.left -= time.monotonic() - start
        finally:
            for f in fds:
                try:
                    os.close(f)
                except OSError:
                    pass
            if folder:
                shutil.rmtree(folder, ignore_errors=True)

    def _communicate(self, cmd, cwd, env, keep, res_r, res_w, req, timeout, ncalls):
        cap = 64 << 20
        try:
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, cwd=cwd, env=env, pass_fds=keep,
                                 start_new_session=True, preexec_fn=self._preexec)
        except OSError as e:
            return None, "could not be started (%s: %s)" % (cmd[0], e.strerror or e)
        os.close(res_w)               # the child holds the only write end now
        try:
            p.stdin.write(req)
            p.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        out, err, res = bytearray(), bytearray(), bytearray()
        bufs = {p.stdout.fileno(): out, p.stderr.fileno(): err, res_r: res}
        sel = selectors.DefaultSelector()
        for f in bufs:
            sel.register(f, selectors.EVENT_READ)
        deadline, why = time.monotonic() + timeout, None

        def pump(until):
            while sel.get_map():
                left = until - time.monotonic()
                if left <= 0:
                    return "timeout"
                for key, _ in sel.select(timeout=min(left, 0.5)):
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        sel.unregister(key.fd)
                        continue
                    b = bufs[key.fd]
                    if len(b) <= cap:
                        b += chunk[:cap - len(b) + 1]
                if len(res) > cap:
                    return "its answers took more than 64 MiB"
                if len(out) > cap or len(err) > cap:   # flooding: enough has been seen
                    return "flood"
                if res.endswith(b"\n") and b"{" in res:   # the reply is complete
                    return None
            return None
        why = pump(deadline)
        self._kill(p)                 # the sandbox and whatever it still runs
        if why is None:               # what was printed before the reply, to its end
            pump(time.monotonic() + 2.0)
        sel.close()
        try:
            rc = p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = p.wait()
        p.stdout.close()
        p.stderr.close()
        head = bytes(res[:res.find(b"{")] if b"{" in res else res)
        imported, done = b"I\n" in head, head.count(b"C\n")
        if why == "timeout":
            if not imported:
                self.hung = ("did not finish importing within %.3g s (an infinite loop at import?); "
                             "the remaining tests do not run it again" % timeout)
                return None, self.hung
            within = ("%.3g s" % timeout if timeout >= self.timeout else
                      "the %.2g s left of the submission's budget of %g s" % (timeout, self.budget))
            return None, ("did not finish within %s (an infinite loop, or far too slow?): %d of "
                          "its %d calls had returned; it is not called again in this test"
                          % (within, min(done, ncalls), ncalls))
        if why == "flood":
            return None, "wrote more than 64 MiB on stdout or stderr: the grader stopped it"
        if why:
            return None, why
        stdout = bytes(out[:200]).decode("utf-8", "replace")
        body = bytes(res[len(head):]).strip()
        if body:
            return {"body": body, "stdout": stdout}, None
        if rc < 0:
            sig = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
            hint = {"SIGXCPU": " (the CPU time limit)", "SIGKILL": " (a limit, or memory)",
                    "SIGSEGV": " (a crash)", "SIGSYS": " (a system call the sandbox forbids)"}.get(sig, "")
            return None, "was killed by %s%s before it returned" % (sig, hint)
        last = err.decode("utf-8", "replace").strip().splitlines()
        last = last[-1][:300] if last else ""
        return None, ("ended its process (exit status %d) before returning anything: os._exit, "
                      "or a crash%s" % (rc, (": " + last) if last else ""))

    @staticmethod
    def _kill(p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def memfd(data, name):
    """A read-only fd holding data, for bwrap to copy into the sandbox."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create(name, 0)
    else:
        f = tempfile.TemporaryFile()
        fd = os.dup(f.fileno())
        f.close()
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def bwrap_path():
    return os.environ.get("ATT_GRADE_BWRAP") or shutil.which("bwrap") or "bwrap"


_HELP = {}


def has(option, *args):
    """[option, *args] if this bwrap has the option (bwrap --help), else [] (an older bwrap:
    the environment is minimal anyway, the files keep bwrap's modes)."""
    return [option] + list(args) if option in bwrap_help() else []


def bwrap_help():
    """bwrap --help's text (which options this version has), once."""
    exe = bwrap_path()
    if exe not in _HELP:
        try:
            p = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=30)
            _HELP[exe] = p.stdout + p.stderr
        except (OSError, subprocess.SubprocessError):
            _HELP[exe] = ""
    return _HELP[exe]


SANDBOX_PROC = [True]     # does the sandbox get a /proc? (sandbox_problem decides)


def sandbox_key(python, proc):
    """What $ATT_GRADE_SANDBOX_OK holds once this bwrap ran this interpreter in its sandbox,
    with a /proc (proc) or without: 'BWRAP PYTHON proc|noproc' (bwrap by its real path)."""
    exe = os.environ.get("ATT_GRADE_BWRAP") or shutil.which("bwrap") or ""
    return "%s %s %s" % (os.path.realpath(exe), python, "proc" if proc else "noproc")


def sandbox_problem(python, pydirs):
    """None if a bubblewrap sandbox runs the interpreter with NumPy here, else why not.

    Tried with a /proc of its own first, then without one. A run that starts many graders
    (the test suites) may try it once and pass sandbox_key's line as $ATT_GRADE_SANDBOX_OK:
    when it names this bwrap and interpreter, the trial run is skipped (its checks without a
    run are not). A wrong line cannot give a point: every file still runs in the sandbox,
    which then fails to start (0 points, the reason in each test)."""
    SANDBOX_PROC[0] = True
    known = os.environ.get("ATT_GRADE_SANDBOX_OK")
    for proc in (True, False):
        if known == sandbox_key(python, proc):
            why = sandbox_try(python, pydirs, run=False)
            SANDBOX_PROC[0] = proc if why is None else True
            return why
    why = sandbox_try(python, pydirs)
    if why is not None and "proc" in why:
        SANDBOX_PROC[0] = False
        if sandbox_try(python, pydirs) is None:
            return None
        SANDBOX_PROC[0] = True
    return why


def sandbox_try(python, pydirs, run=True):
    """None if the sandbox, as SANDBOX_PROC says, runs a one-line function, else why not
    (run=False: only the checks before that run)."""
    exe = os.environ.get("ATT_GRADE_BWRAP") or shutil.which("bwrap")
    if not exe or not os.access(exe, os.X_OK):
        return "bubblewrap (bwrap) is not installed"
    for d in pydirs:
        r = os.path.realpath(ROOT)
        if r == d or r.startswith(d.rstrip("/") + "/"):
            return ("the interpreter %s lives in %s, which holds this repository (its solutions): "
                    "the sandbox would show them; use a Python outside it (ATT_PYTHON)" % (python, d))
    if not run:
        return None
    fd, path = tempfile.mkstemp(suffix=".py", prefix="grade-probe-")
    try:
        os.write(fd, b"def f():\n    return 1\n")
        os.close(fd)
        box = Sandbox(python, pydirs, path, 60.0, 1 << 30, 60.0)
        res, why = box.run("f", [{"args": []}])
        if res is None:
            return "a test run in bwrap failed: the child " + why
        try:
            if json.loads(res["body"])["calls"][0]["value"] == {"type": "int", "value": 1}:
                return None
        except (ValueError, KeyError, IndexError, TypeError):
            pass
        return "a test run in bwrap returned an unexpected answer"
    finally:
        os.unlink(path)

# ---- values the child returned: untrusted data, checked against a schema ----------

class Wrong(Exception):
    """The student's answer is wrong: the message says how."""


class Malformed(Exception):
    """The child's reply is not in the grader's schema."""


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


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def checked(v, depth=0):
    """v if it is a value the runner's enc() can produce, else raise Malformed.

    An ndarray's data holds exactly prod(shape) numbers; a scalar's value has its type.
    """
    if depth > 8 or not isinstance(v, dict) or not isinstance(v.get("type"), str) or \
            not 0 < len(v["type"]) <= 60:
        raise Malformed("a value without a type")
    t, keys = v["type"], set(v)
    if t == "ndarray":
        shape, dtype = v.get("shape"), v.get("dtype")
        if not isinstance(shape, list) or len(shape) > 8 or \
                not all(is_int(s) and 0 <= s <= 1 << 31 for s in shape):
            raise Malformed("an array shape that is not a list of sizes")
        if not isinstance(dtype, str) or len(dtype) > 40:
            raise Malformed("an array without a dtype")
        n = 1
        for s in shape:
            n *= s
        if keys == {"type", "shape", "dtype", "big"} and v["big"] is True and n > 2000000:
            return v
        if keys == {"type", "shape", "dtype"}:
            return v
        data = v.get("data")
        if keys != {"type", "shape", "dtype", "data"} or not isinstance(data, list):
            raise Malformed("an array with unknown fields")
        if len(data) != n:
            raise Malformed("an array of shape %s with %d numbers (it needs %d)"
                            % (tuple(shape), len(data), n))
        if not all(type(x) is float for x in data):
            raise Malformed("an array holding something other than float64 numbers")
        return v
    if t in ("bool", "int", "float"):
        x = v.get("value")
        ok = {"bool": isinstance(x, bool), "int": is_int(x) and abs(x) < 1 << 63,
              "float": type(x) is float}[t]
        if keys != {"type", "value"} or not ok:
            raise Malformed("a %s whose value is not one" % t)
        return v
    if t in ("tuple", "list", "sequence"):
        items = v.get("items")
        if keys != {"type", "items"} or not isinstance(items, list) or len(items) > 1000:
            raise Malformed("a %s without its items" % t)
        for x in items:
            checked(x, depth + 1)
        return v
    if t == "dict":
        items = v.get("items")
        if keys != {"type", "items"} or not isinstance(items, list) or len(items) > 100:
            raise Malformed("a dict without its items")
        for kv in items:
            if not isinstance(kv, list) or len(kv) != 2 or not isinstance(kv[0], str):
                raise Malformed("a dict item that is not a (key, value) pair")
            checked(kv[1], depth + 1)
        return v
    if keys != {"type"}:
        raise Malformed("an object of type %r with fields" % t)
    return v


def parse_reply(body, ncalls):
    """The child's reply as {"import", "missing", "calls"}, checked, or raise Malformed."""
    try:
        doc = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Malformed("not JSON")
    if not isinstance(doc, dict) or set(doc) != {"import", "missing", "calls"}:
        raise Malformed("not the fields import, missing, calls")
    imp, missing, calls = doc["import"], doc["missing"], doc["calls"]
    if not (imp is None or isinstance(imp, str)) or not isinstance(missing, bool) or \
            not isinstance(calls, list):
        raise Malformed("fields of the wrong types")
    if imp is None and not missing and len(calls) != ncalls:
        raise Malformed("%d answer%s for %d cases" % (len(calls), "" if len(calls) == 1 else "s",
                                                       ncalls))
    for c in calls:
        if not isinstance(c, dict):
            raise Malformed("an answer that is not a record")
        if set(c) == {"value"}:
            checked(c["value"])
        elif set(c) in ({"error"}, {"error", "probe"}) and isinstance(c["error"], str):
            probe = c.get("probe")
            if probe is not None:
                if not isinstance(probe, list) or len(probe) > 4:
                    raise Malformed("probes that are not a list")
                for p in probe:
                    if p is not None:
                        checked(p)
        else:
            raise Malformed("an answer with unknown fields")
    return doc


def call_values(box, func, calls):
    """The student's return values, one Answer per call, or raise Wrong.

    calls: argument lists, or {"args": [...], "probe": [[...], ...]} (argument lists
    to try when the call raises, to tell which mistake it is).
    """
    calls = [c if isinstance(c, dict) else {"args": c} for c in calls]
    res, why = box.run(func, calls)
    if res is None:
        raise Wrong("your file " + why)
    try:
        doc = parse_reply(res["body"], len(calls))
    except Malformed as e:
        raise Wrong("your file's process sent back %s, which is not what the grader's runner sends: "
                    "something in the file changed the runner or wrote to its channel; the test "
                    "fails" % e)
    name = os.path.basename(box.student)          # the child knows the file as student.py
    if doc["import"] is not None:
        raise Wrong("importing your file " + doc["import"].replace("student.py", name)[:600])
    if res["stdout"]:
        raise Wrong("your file printed on stdout (%r...): remove the print calls; the grader "
                    "reads stdout" % res["stdout"][:60])
    if doc["missing"]:
        raise Wrong("your file has no function %s()" % func)
    return [Answer(c, name) for c in doc["calls"]]


class Answer:
    """One call's outcome: .error (a message) or the value; .probe, the probes' values."""

    def __init__(self, c, name):
        self.error = c["error"].replace("student.py", name)[:600] if "error" in c else None
        self.value = c.get("value")
        self.probe = c.get("probe") or []

    def get(self, at, hint=None):
        """The value, or raise Wrong naming the exception (and hint, a line to add)."""
        if self.error is not None:
            msg = self.error
            if "NotImplementedError" in msg:
                msg += " -- the starter's stub: write the function"
            elif hint:
                msg += "\n  " + hint
            raise Wrong("%s %s" % (at, msg))
        return self.value

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
        # --sizes-only: the table alone (bin/shapes' own checks of it are make check's)
        rc, err = self.run("shapes", ["--B", B, "--Tq", T_q, "--Tk", T_k, "--d", d, "--dk", d_k,
                                      "--dv", d_v, "--out", out, "--quiet", "--sizes-only"])
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
            w = want[name]
            tr = ("; that is the transpose (the last two axes swapped)%s" %
                  (": nn.Linear's (out, in) layout; the section's weights are (d, .), X W"
                   if name.startswith("W_") else "")
                  if len(s) == len(w) >= 2 and s == w[:-2] + (w[-1], w[-2]) else "")
            raise Wrong("%s: %s is %s, expected %s (bin/shapes): %s%s" %
                        (call, name, s, w, WHAT[name], tr))
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
                hint = (": %s is transposed, (%d, %d) instead of (%d, %d); the section's weights "
                        "are (d, .), used as x_t W" % ((name,) + shape + want)
                        if len(shape) == 2 and shape == want[::-1] else "")
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
                    first = ("first failure: sequence %d, t = %d: weight %.4g on t - 1%s; "
                             "%s; o_t's argmax is token %d, token(t-1) is %d" %
                             (s + 1, t, w, " (needs > 0.5)" if w <= 0.5 else " (enough: > 0.5)",
                              spread, max(range(n_vocab), key=lambda k: o[k]), want))
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
        if i == 0:              # d_k > 1: a 1/sqrt(d_k) scale differs from none
            d_k = rng.randint(2, 3)
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
    """max |got - want| / max |want|; infinite when the lengths differ."""
    if len(got) != len(want):
        return math.inf
    top = max([abs(x) for x in want] + [1e-300])
    return max([abs(g - w) for g, w in zip(got, want)] + [0.0]) / top


def diagnose(ctx, c, got, tol):
    """The known mistake that reproduces the student's numbers, if any."""
    d_k = c["d_k"]
    tries = []
    if c["d"] == 3 * d_k:
        tries.append(("your function multiplies by W_qkv transposed (X @ W_qkv.T, PyTorch's nn.Linear "
                      "layout, a (3 d_k, d) weight); the section's W_qkv is (d, 3 d_k): QKV = X @ W_qkv",
                      dict(torch=True)))
    if d_k > 1:
        tries.append(("your function uses 1/sqrt(d_k) = %.4g instead of the scale it is given "
                      "(%g): S = scale * Q K^T" % (1 / math.sqrt(d_k), c["scale"]),
                      dict(scale=1.0 / math.sqrt(d_k))))
    tries.append(("your function ignores the scale (it matches scale = 1%s): S = scale * Q K^T"
                  % (", which is also 1/sqrt(d_k) for d_k = 1" if d_k == 1 else ""),
                  dict(scale=1.0)))
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


def transposed(rows):
    return [list(r) for r in zip(*rows)]


def probe_matches(ctx, c, v, single=False):
    """Is the probe's value the right O (of case c, or of its first sequence alone)?"""
    if not isinstance(v, dict) or v.get("type") != "ndarray" or "data" not in v:
        return False
    if single:
        c = dict(c, B=None, X=c["X"][:c["T"]])
    want = (c["B"], c["T"], c["d_k"]) if c["B"] else (c["T"], c["d_k"])
    if tuple(v["shape"]) != want or not all(math.isfinite(x) for x in v["data"]):
        return False
    tol = max(64.0 * (c["d"] + c["d_k"] + c["T"]) * EPS, 1e-9 if "float32" in v["dtype"] else 0)
    return rel_err(v["data"], fused_reference(ctx, c)) <= tol


def probe_hint(ctx, c, answer):
    """The mistake that made the call raise, when a probe shows it; else None."""
    if answer.error is None or "NotImplementedError" in answer.error:
        return None
    p = answer.probe + [None, None]
    if probe_matches(ctx, c, p[0]):
        return ("given W_qkv transposed, (3 d_k, d), your function returns the right O: it computes "
                "X @ W_qkv.T, PyTorch's nn.Linear layout; the section's W_qkv is (d, 3 d_k): "
                "QKV = X @ W_qkv")
    if c["B"] and probe_matches(ctx, c, p[1], single=True):
        return ("on the first sequence alone, X[0] of shape (T, d), your function returns the right "
                "O: some step is right for 2-D arrays only, such as K.T (it reverses all three "
                "axes of a (B, T, d_k) array; np.swapaxes(K, -1, -2) swaps the last two)")
    return None


def check_fused(ctx, rng, batched):
    cases = fused_cases(rng, batched)
    calls = []
    for c in cases:
        shape = (c["B"], c["T"], c["d"]) if batched else (c["T"], c["d"])
        X, W = nd(c["X"], shape), nd(c["W"], (c["d"], 3 * c["d_k"]))
        # if it raises: try W_qkv transposed (does it compute X @ W_qkv.T?) and, for a
        # batch, the first sequence alone (is it right for 2-D arrays only?)
        probe = [[X, nd(transposed(c["W"]), (3 * c["d_k"], c["d"])), c["scale"]]]
        if batched:
            probe.append([nd(c["X"][:c["T"]], (c["T"], c["d"])), W, c["scale"]])
        calls.append({"args": [X, W, c["scale"]], "probe": probe})
    values = call_values(ctx.box, "fused_self_attention", calls)
    worst = 0.0
    for c, answer in zip(cases, values):
        B, T, d, d_k = c["B"], c["T"], c["d"], c["d_k"]
        at = ("fused_self_attention(X %s, W_qkv (%d, %d), scale=%g)" %
              ((B, T, d) if batched else (T, d), d, 3 * d_k, c["scale"]))
        v = answer.get(at, probe_hint(ctx, c, answer))
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
            if hint is None and v["dtype"] == "float64":    # none of diagnose's variants matched
                hint = ("no single known mistake (W_qkv transposed, 1/sqrt(d_k) for the scale, the "
                        "scale ignored, a wrong split order) reproduces this; perhaps two at once: "
                        "check the split order and the scale one at a time")
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



class Ctx:
    pass


def write_json(path, results, total, maximum, header, hide):
    """Gradescope's results.json, atomically; tests in hide are shown after the due date."""
    tests = []
    for n, s, m, o in results:
        t = {"name": n, "score": s, "max_score": m, "output": o}
        if n in hide or "all" in hide:
            t["visibility"] = "after_due_date"
        tests.append(t)
    doc = {"score": total, "output": "%s: %d of %d points" % (header, total, maximum),
           "tests": tests}
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".results-", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def seed_shown(a):
    """The seed as results and replay lines may show it: a secret one is never printed."""
    return str(a.seed) if a.seed == PUBLIC_SEED else "(the course's, not shown)"


def replay_line(a, path, name):
    tr = " --trusted" if a.trusted else ""
    if a.seed == PUBLIC_SEED:
        return "replay: python3 exercises/grade.py %s --seed %d --test %s%s" % (path, a.seed, name, tr)
    return ("replay: this test's cases come from the course's secret seed; with the public one: "
            "python3 exercises/grade.py %s --test %s%s" % (path, name, tr))


def grade_one(a, path, json_path, env):
    """Grade one file: print its table; (0 full marks | 1 some test failed | 3 grader error, points, max)."""
    python, npver, pydirs, problem = env
    results, maximum = [], sum(p for n, p, _ in POINTS if not a.test or n in a.test)
    mode = ("NO SANDBOX (--trusted)" if problem is not None else
            "sandbox bwrap" if SANDBOX_PROC[0] else "sandbox bwrap (no /proc)")
    header = "grade.py %s   seed %s   python %s (NumPy %s)   %s" % (
        path, seed_shown(a), python, npver, mode)
    status, work = 0, None
    try:
        if problem is not None and not a.trusted:
            raise GraderError(
                "refusing to run %s without a sandbox: %s. An untrusted file could read the "
                "solutions, change bin/ or the grades, or other submissions. To grade it, %s. "
                "To check your own file without a sandbox, add --trusted (make grade does)."
                % (path, problem, INSTALL))
        work = tempfile.mkdtemp(prefix="grade-ref-")
        ctx = Ctx()
        ctx.c = C(a.bin, work)
        ctx.box = Sandbox(python, pydirs, path, a.timeout, a.memory << 20, a.budget,
                          sandbox=problem is None)
        print(header)
        print("%-18s %-7s %s" % ("test", "points", "result"))
        for name, pts, func in POINTS:
            if a.test and name not in a.test:
                continue
            rng = random.Random("%d:%s" % (a.seed, name))
            try:
                out, score = TESTS[name](ctx, rng), pts
            except Wrong as e:
                out, score = "%s\n%s" % (e, replay_line(a, path, name)), 0
            except GraderError as e:          # the grader's own inputs failed: not the student's
                out, score, status = "grader error (not your file): %s" % e, 0, 3
                print("grade.py: %s: %s: %s" % (path, name, e), file=sys.stderr)
            except Exception as e:            # an answer the checks did not foresee: a failed test
                traceback.print_exc()
                out, score = ("the grader could not check this answer (%s: %s): the test fails\n%s"
                              % (type(e).__name__, str(e)[:200], replay_line(a, path, name))), 0
            results.append((name, score, pts, out))
            first, _, rest = out.partition("\n")
            print("%-18s %d/%-5d %s  %s" % (name, score, pts, "PASS" if score == pts else "FAIL", first))
            for line in rest.splitlines():
                print("%-26s %s" % ("", line))
            sys.stdout.flush()
    except (GraderError, OSError) as e:
        print("grade.py: %s: %s" % (path, e), file=sys.stderr)
        status, header = 3, "grader error: %s" % e
        results = [(n, 0, p, "not run: %s" % e) for n, p, _ in POINTS if not a.test or n in a.test]
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)
    total = sum(r[1] for r in results)
    if status != 3 or results:
        print("total %d/%d" % (total, maximum))
    if json_path:
        write_json(json_path, results, total, maximum, header, a.hide or [])
    return (status or (0 if total == maximum else 1)), total, maximum


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="grade.py", description="Grade a student's section_4_2.py (attention_shapes, "
        "previous_token_head, fused_self_attention) against the suite's C head, each test in a "
        "bubblewrap sandbox. Given a folder, grade every *.py in it and end with one line per "
        "submission.",
        epilog="exit status: 0 every test passed (every submission, for a folder), 1 some test "
               "failed, 2 bad usage, 3 the grader failed (e.g. bin/ not built, no sandbox)")
    ap.add_argument("file", help="the student's Python file, or a folder of submissions (*.py)")
    ap.add_argument("--json", metavar="PATH", help="also write Gradescope's results.json form "
                    "(for a folder: PATH is a folder, one <name>.json per submission)")
    ap.add_argument("--seed", type=int, default=PUBLIC_SEED,
                    help="seed of the random cases (default %d, the public one; any other is "
                    "never printed)" % PUBLIC_SEED)
    ap.add_argument("--seed-file", metavar="PATH", help="read the seed from this file (a secret "
                    "seed kept off the command line)")
    ap.add_argument("--test", action="append", metavar="NAME", choices=list(TESTS),
                    help="run only this test (repeatable): " + ", ".join(TESTS))
    ap.add_argument("--hide", action="append", metavar="NAME", choices=list(TESTS) + ["all"],
                    help="mark this test (or all) visible only after the due date in results.json")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per test (default 20)")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds of the student's code per submission, all tests (default 60)")
    ap.add_argument("--memory", type=int, default=2048, help="MiB of address space per test (default 2048)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin"), help="where bin/shapes and bin/attention are")
    ap.add_argument("--trusted", action="store_true",
                    help="the file is your own: grade it without a sandbox if none can be made "
                    "(the sandbox is always used when it works)")
    a = ap.parse_args(argv)
    if a.seed_file:
        try:
            with open(a.seed_file) as f:
                a.seed = int(f.read().strip())
        except (OSError, ValueError) as e:
            print("grade.py: --seed-file %s: %s (it must hold one integer)" % (a.seed_file, e),
                  file=sys.stderr)
            return 2
    folder = os.path.isdir(a.file)
    if not folder and not os.path.isfile(a.file):
        print("grade.py: %s: no such file or folder" % a.file, file=sys.stderr)
        return 2
    if not a.timeout > 0 or not a.budget > 0 or a.memory < 256:
        print("grade.py: --timeout and --budget must be > 0 and --memory >= 256", file=sys.stderr)
        return 2
    jdir = a.json if folder else os.path.dirname(os.path.abspath(a.json)) if a.json else None
    if jdir and not os.path.isdir(jdir):
        print("grade.py: --json %s: %s is not a folder" % (a.json, jdir), file=sys.stderr)
        return 2
    try:
        python, npver, pydirs = find_python()
    except GraderError as e:
        print("grade.py: %s" % e, file=sys.stderr)
        return 3
    problem = sandbox_problem(python, pydirs)
    if problem is not None and a.trusted:
        print("grade.py: no sandbox (%s); --trusted: running the file as a plain child process"
              % problem, file=sys.stderr)
    env = (python, npver, pydirs, problem)
    if not folder:
        return grade_one(a, a.file, a.json, env)[0]
    files = sorted(f for f in os.listdir(a.file) if f.endswith(".py"))
    if not files:
        print("grade.py: %s holds no .py file" % a.file, file=sys.stderr)
        return 2
    summary, worst = [], 0
    for f in files:
        j = os.path.join(a.json, f[:-3] + ".json") if a.json else None
        p = os.path.join(a.file, f)
        try:
            if os.path.islink(p) or not os.path.isfile(p):
                raise GraderError("%s is not a regular file (a symlink?): not graded" % p)
            st, total, maximum = grade_one(a, p, j, env)
        except Exception as e:                # whatever one file does, the others are graded
            traceback.print_exc()
            st, total, maximum = 3, 0, sum(q for n, q, _ in POINTS if not a.test or n in a.test)
            if j:
                try:
                    write_json(j, [], 0, maximum, "grader error: %s" % e, [])
                except OSError:
                    pass
        summary.append((f, total, maximum, st))
        worst = max(worst, st)
        print()
    print("%-40s %s" % ("submission", "points"))
    for f, total, maximum, st in summary:
        print("%-40s %d/%d%s" % (f, total, maximum, "   (grader error)" if st == 3 else ""))
    return worst


if __name__ == "__main__":
    sys.exit(main())

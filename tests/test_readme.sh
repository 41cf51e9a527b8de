#!/bin/sh
# test_readme.sh - the README's "For students" part works as shown: every
# command of its ```console blocks runs, and prints what the README shows.
#
#   sh tests/test_readme.sh            run and compare (make check runs this)
#   sh tests/test_readme.sh --update   rewrite the shown outputs in README.md
#                                      from what the commands print now (after
#                                      a merge changed a program's output;
#                                      review the result with git diff)
#
# The block format (a terminal session, as a student types it):
#   ```console
#   $ command                      a command (a line ending in \ continues it)
#   output line                    what it prints (stdout and stderr, in order)
#   ...                            any number of lines left out (also none)
#   [exit 2]                       the exit status, when it is not 0
#   ```
# No output line under a command means it must print nothing. Every fenced
# block in that part must be a console block (nothing there is left
# untested). Every relative link of README.md and doc/*.md must lead to a
# file (and a heading, for #anchors), and the claims table between the
# claims markers must be what build/tools/report makes of results/*.verdicts.csv
# (make reproduce writes both). The commands run one after another, each from the top of a
# scratch copy of this checkout (symbolic links to it, without out/), so a
# run writes into the scratch out/, never into yours; bin/ is $ATT_BIN_DIR
# when set (make sanitize's bin-san/), in an 80 x 24 pseudo-terminal. Trailing
# spaces are ignored, and so is the progress meter a run longer than 2 s
# draws on stderr (its lines depend on the machine's speed); nothing else. A mismatch prints the command, what was shown and what came out.
set -u
cd "$(dirname "$0")/.." || exit 3
command -v python3 >/dev/null 2>&1 || { echo "test_readme: skipped (no python3)"; exit 0; }
exec python3 - "$@" <<'PYEOF'
import difflib, fcntl, os, re, select, shutil, signal, struct, subprocess, sys, tempfile, termios, time

README = "README.md"
PART = "## For students"
TIMEOUT = 120
update = "--update" in sys.argv[1:]
bad = [a for a in sys.argv[1:] if a != "--update"]
if bad:
    print("test_readme: unknown option %s (use --update or nothing)" % bad[0], file=sys.stderr)
    sys.exit(2)

lines = open(README, encoding="utf-8").read().split("\n")
try:
    start = lines.index(PART)
except ValueError:
    print("test_readme: README.md has no line '%s'" % PART)
    sys.exit(1)
end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))

# ---- parse: blocks -> commands with their shown output ---------------------
class Cmd:
    def __init__(self, first, text):
        self.first = first          # line index of "$ ..."
        self.text = text            # the shell command
        self.out_lo = self.out_hi = None   # shown output lines [lo, hi)
        self.status = 0

cmds, errors = [], []
i = start
while i < end:
    m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
    if not m:
        i += 1
        continue
    lang, j = m.group(2), i + 1
    close = next((k for k in range(j, end) if re.match(r"^\s*```\s*$", lines[k])), None)
    if close is None:
        errors.append("line %d: a ``` block that never closes" % (i + 1)); break
    if lang != "console":
        errors.append("line %d: a ```%s block in 'For students' (every block there must be "
                      "```console, so that it is tested)" % (i + 1, lang))
        i = close + 1; continue
    cur = None
    k = j
    while k < close:
        l = lines[k]
        if l.startswith("$ "):
            text, first = l[2:], k
            while text.endswith("\\") and k + 1 < close:
                k += 1
                text = text + "\n" + lines[k]
            cur = Cmd(first, text)
            cur.out_lo = cur.out_hi = k + 1
            cmds.append(cur)
        elif cur is None:
            if l.strip():
                errors.append("line %d: output before any '$ ' command" % (k + 1))
        else:
            cur.out_hi = k + 1
        k += 1
    i = close + 1
if not cmds and not errors:
    errors.append("no ```console block with a '$ ' command in 'For students'")
if errors:
    for e in errors: print("test_readme: README.md " + e)
    sys.exit(1)

# What a student's first hour needs the README to show (issue 33), each as a
# command of 'For students' and a line of its shown output, so that none of
# them can be dropped from the README unnoticed (the run below then checks
# that the programs still print it):
REQUIRED = [
    ("make deps says what it checked", r"^make deps$", r"^deps: checked \d+ Debian packages .*none missing"),
    ("the interpreter for one's own NumPy checks", r"^make python$", r"^/usr/bin/python3$"),
    ("an expression for --scale", r"--scale '1/sqrt\(2\)'", None),
    ("the NumPy check of that scale", r"python3 -c .*numpy", r"^0\.70710678118654746$"),
    ("the decimal-comma hint", r"bin/attention .*semicolons", r"decimal commas"),
    ("the failing row named in the summary", r"^bin/random_projections .*--d 4", r"^  FAIL \(claim\): .* rule: "),
    ("the self-weight itself beside 1/T", r"^bin/random_projections ", r"^  mean self-weight a_ii .*\(1/T = "),
    ("the pass band drawn in a point run's figure", r"pdftotext out/figures/random_projections\.pdf",
     r"^pass band \[0\.95, 1\.05\]$"),
]

def shown(c):
    out = [l.rstrip() for l in lines[c.out_lo:c.out_hi]]
    while out and not out[-1]: out.pop()
    st = 0
    if out and re.match(r"^\[exit \d+\]$", out[-1]):
        st = int(out[-1][6:-1]); out.pop()
        while out and not out[-1]: out.pop()
    return out, st

missing = []
for what, cre, ore in REQUIRED:
    ok = False
    for c in cmds:
        if not re.search(cre, c.text, re.M): continue
        if ore is None or any(re.search(ore, l) for l in shown(c)[0]): ok = True; break
    if not ok: missing.append(what)
if missing:
    for w in missing:
        print("test_readme: README.md's 'For students' no longer shows %s (a command and its output)" % w)
    sys.exit(1)

# ---- matching with "..." ----------------------------------------------------
def match(pat, got):
    """pat lines (with '...' lines) against got lines; '...' matches any run."""
    memo = {}
    def m(p, g):
        if (p, g) in memo: return memo[(p, g)]
        if p == len(pat): r = g == len(got)
        elif pat[p] == "...": r = any(m(p + 1, h) for h in range(g, len(got) + 1))
        else: r = g < len(got) and pat[p] == got[g] and m(p + 1, g + 1)
        memo[(p, g)] = r
        return r
    sys.setrecursionlimit(10000 + 4 * (len(pat) + len(got)))
    return m(0, 0)

def refit(pat, got):
    """new shown lines: keep the '...' structure, each literal run replaced by
    the most similar run of the same length in got (in order)."""
    if "..." not in pat: return list(got)
    segs, cur = [], []
    for l in pat + ["..."]:
        if l == "...":
            segs.append(cur); cur = []
        else: cur.append(l)
    # segs[0] is anchored at the start unless pat starts with '...', the last at the end
    out, pos = [], 0
    for n, s in enumerate(segs):
        if n > 0: out.append("...")
        if not s: continue
        L = len(s)
        if n == 0:
            cands = [0]
        elif n == len(segs) - 1 and pat[-1] != "...":
            cands = [max(pos, len(got) - L)]
        else:
            cands = range(pos, max(pos, len(got) - L) + 1)
        best, bestr = cands[0], -1.0
        for c in cands:
            r = difflib.SequenceMatcher(None, "\n".join(s), "\n".join(got[c:c + L])).ratio()
            if r > bestr: best, bestr = c, r
        out.extend(got[best:best + L]); pos = best + L
    if pat[-1] == "..." and out[-1] != "...": out.append("...")
    return out

# ---- links: every relative link of README.md and doc/*.md leads somewhere -------
def slug(h):
    h = re.sub(r"[^\w\- ]", "", h.strip().lower().replace("`", ""))
    return h.replace(" ", "-")

def anchors(path):
    try: text = open(path, encoding="utf-8").read()
    except OSError: return set()
    return {slug(m.group(1)) for m in re.finditer(r"(?m)^#+ (.*)$", text)}

def broken_links():
    bad = []
    files = [README] + sorted(os.path.join("doc", f) for f in os.listdir("doc") if f.endswith(".md"))
    for f in files:
        text = open(f, encoding="utf-8").read()
        text = re.sub(r"(?s)```.*?```", "", text)          # not inside code blocks
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target): continue      # http:, mailto:, ...
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(full):
                bad.append("%s: link to %s: no such file" % (f, target))
            elif frag and full.endswith(".md") and frag not in anchors(full):
                bad.append("%s: link to %s: no heading '#%s' there" % (f, target, frag))
    return bad

links = broken_links()
for b in links: print("test_readme: " + b)

# ---- the claims table: what the report makes of the committed verdicts ---------
def claims_table_stale():
    """README's block between the claims markers against build/tools/report's
    claims_summary.md from results/*.verdicts.csv; None when it agrees or when
    the report is not built"""
    report = os.path.join(os.environ.get("BUILD", "build"), "tools", "report")
    if not os.access(report, os.X_OK): return None
    text = "\n".join(lines)
    m = re.search(r"<!-- claims:begin -->\n(.*?)<!-- claims:end -->", text, re.S)
    if not m: return "README.md has no <!-- claims:begin --> ... <!-- claims:end --> block"
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    ids = subprocess.run(["make", "-s", "--no-print-directory", "--eval", "ids: ; @echo $(EXPERIMENTS)",
                          "ids"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL).stdout.decode().split()
    ids = [i for i in ids if os.path.exists("results/%s.verdicts.csv" % i)]
    if not ids: return None
    d = tempfile.mkdtemp(prefix="test_readme_claims.")
    try:
        for i in ids: shutil.copy("results/%s.verdicts.csv" % i, d)
        # the long run's verdicts (make reproduce-long), which the report reads when present
        for i in ids:
            if os.path.exists("results/long/%s.verdicts.csv" % i):
                os.makedirs(os.path.join(d, "long"), exist_ok=True)
                shutil.copy("results/long/%s.verdicts.csv" % i, os.path.join(d, "long"))
        p = subprocess.run([report, "--out", d] + ids, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        if p.returncode:
            # results/ written by an older format of the verdict files (a merge
            # changed it before make reproduce ran): nothing to compare yet
            print("test_readme: claims table not compared: build/tools/report refuses results/ (%s); "
                  "make reproduce rewrites both" % p.stderr.decode().strip().split("\n")[0][:160])
            return None
        want = open(os.path.join(d, "claims_summary.md"), encoding="utf-8").read()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    global claims_compared
    claims_compared = True
    if m.group(1) == want: return None
    diff = list(difflib.unified_diff(m.group(1).split("\n"), want.split("\n"), lineterm="", n=0))[2:8]
    return ("README.md's claims table is not what build/tools/report makes of results/*.verdicts.csv "
            "(make reproduce rewrites it; sh tools/report/readme_sync.sh results):\n  " + "\n  ".join(diff))

claims_compared = False
stale = claims_table_stale()
if stale: print("test_readme: " + stale)

# ---- run ----------------------------------------------------------------------
def run_in_terminal(cmd, cwd, env):
    """run cmd with stdout and stderr on one pseudo-terminal, as a student's
    terminal shows them (line-buffered, in the order written): (lines, status)"""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))   # an 80 x 24 terminal
    p = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    buf, deadline = b"", time.time() + TIMEOUT
    while True:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try: data = os.read(master, 65536)
            except OSError: data = b""       # EIO: every writer has closed the terminal
            if not data: break
            buf += data
        elif time.time() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            buf += b"\n(no end after %d s)" % TIMEOUT
            break
    os.close(master)
    st = p.wait()
    if st < 0: st = 128 - st
    return screen(buf.decode("utf-8", "replace")), st

PROGRESS = re.compile(r"^\S+: \d+/\d+ draws \(\d+%\), [\d.]+ s\s*$")
def screen(text):
    """the lines a terminal shows: a carriage return lets the rest of the line
    overwrite its start; a line redrawn in place (a progress meter, which a run
    longer than 2 s draws on stderr, so its presence depends on the machine's
    speed) is left out when what remains is a meter or blank"""
    out = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        if "\r" not in raw:
            out.append(raw); continue
        cells = []
        for piece in raw.split("\r"):
            cells[:len(piece)] = list(piece)
        line = "".join(cells)
        if line.strip() and not PROGRESS.match(line):
            out.append(line)
    return out

top = os.getcwd()
scratch = tempfile.mkdtemp(prefix="test_readme.")
try:
    bindir = os.environ.get("ATT_BIN_DIR", "bin")
    for name in os.listdir(top):
        if name in ("out", "bin"): continue
        os.symlink(os.path.join(top, name), os.path.join(scratch, name))
    os.symlink(os.path.join(top, bindir) if not os.path.isabs(bindir) else bindir,
               os.path.join(scratch, "bin"))
    env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8", TERM="dumb", COLUMNS="80", LINES="24")
    # a student's make, not a sub-make of make check: no "Entering directory"
    # lines, no jobserver; the build folders of the caller (make sanitize's
    # build-san/, bin-san/) still count, through BUILD and bin/ -> ATT_BIN_DIR
    for v in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS"):
        env.pop(v, None)
    fails, edits = 0, {}
    for c in cmds:
        want, want_st = shown(c)
        got, st = run_in_terminal(c.text, scratch, env)
        got = [l.rstrip() for l in got]
        while got and not got[-1]: got.pop()
        ok = st == want_st and match(want, got)
        if ok: continue
        if update:
            new = refit(want, got) if match(refit(want, got), got) else list(got)
            if st: new.append("[exit %d]" % st)
            edits[c] = new
            continue
        fails += 1
        print("test_readme: README.md line %d: `%s`" % (c.first + 1, c.text.replace("\n", " ")))
        if st != want_st:
            print("  exit status %d, the README shows %d" % (st, want_st))
        if not match(want, got):
            print("  shown (-) against printed (+):")
            # against the closest reading of the output that keeps the "..." lines
            fit = refit(want, got)
            for l in list(difflib.unified_diff(want, fit if match(fit, got) else got,
                                               lineterm="", n=1))[2:60]:
                print("  " + l)
        print("  replay: cd %s && sh -c '%s'   (or: sh tests/test_readme.sh --update)"
              % (top, c.text.replace("'", "'\\''")))
    if update:
        for c in sorted(edits, key=lambda c: -c.first):
            lines[c.out_lo:c.out_hi] = edits[c]
        if edits:
            tmp = README + ".tmp.%d" % os.getpid()
            with open(tmp, "w", encoding="utf-8") as f: f.write("\n".join(lines))
            os.replace(tmp, README)
        print("test_readme: %d of %d shown outputs rewritten in README.md (review: git diff README.md)"
              % (len(edits), len(cmds)))
        sys.exit(0)
    if fails or ((links or stale) and not update):
        if links: print("test_readme: %d broken links in README.md and doc/*.md" % len(links))
        if fails: print("test_readme: %d of %d commands of 'For students' did not print what the "
                        "README shows" % (fails, len(cmds)))
        sys.exit(1)
    print("test_readme: all %d commands of 'For students' print what the README shows; "
          "every link of README.md and doc/*.md leads to a file and heading%s" % (len(cmds),
          "; the claims table is the report's" if claims_compared else ""))
finally:
    shutil.rmtree(scratch, ignore_errors=True)
PYEOF

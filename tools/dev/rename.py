#!/usr/bin/env python3
"""rename.py - issue 17's renames, applied to a whole tree (doc/naming.md has the rules).

    python3 tools/dev/rename.py [--root DIR] [--dry-run] [--no-git] [--quiet]

What it does, in this order, to every tracked or untracked-but-not-ignored text
file of the tree (results/, fuzz/corpus*/ and this script itself are left alone):

  1. Function renames (RENAMES below): whole identifiers only, in code, comments,
     strings, docs, scripts and the Makefile. In Python files an attribute
     (`np.logsumexp`) is not touched. A regex written `\\bname` counts as a word.
  2. File renames (FILE_RENAMES): `git mv` (or os.rename with --no-git), and
     every reference: `#include "stats.h"`, `lib/run/stats.c`, `stats.h`,
     `lib/run/stats` (a path without extension).
  3. The RNG argument first (the rule of doc/naming.md, GSL's own order): every
     parameter list in C code with one `gsl_rng *` parameter that is not first
     (function definitions and declarations, static or not; function-pointer
     typedefs; function-pointer fields and parameters) gets it moved first, and
     every call of those functions is permuted the same way: the argument list
     is parsed with balanced (), [], {} and comments/strings skipped, and the
     separators (spaces, line breaks) stay where they were. Calls through a
     field or variable of a reordered function-pointer type (`cfg->draw(...)`)
     are permuted when exactly one of the candidate positions holds an
     rng-looking argument. In comments and in .md/.tex files, calls and
     parameter lists that close on the same line are permuted too.

The script is idempotent: the table of reorders is read from the tree's own
declarations each run, so a second run finds every `gsl_rng *` first and
changes nothing. Run it on a tree where declarations and calls are in the same
state (all old, or all new): a call written in the old order against a
declaration already reordered cannot be told apart by position, and is only
REPORTED when its first argument does not look like a generator and another
does.

Everything it could not rewrite is printed as `rename.py: check by hand: ...`
(file:line and why). Exit status: 0 done and nothing to report; 1 done, with
items to check by hand; 2 bad usage; 3 an I/O or git error.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

# ---------------------------------------------------------------- the tables
# old name -> new name (functions exported by lib/<layer>/<file>.h)
RENAMES = {
    # lib/claims/prevtoken.h
    'circuit_prev_token_factor': 'prevtoken_circuit_factor',
    'circuit_prev_token_build': 'prevtoken_circuit_build',
    'circuit_prev_token_inputs': 'prevtoken_circuit_inputs',
    # lib/claims/prevtrain.h
    'adam_step': 'prevtrain_adam_step',
    'prev_config_default': 'prevtrain_config_default',
    'prev_model_alloc': 'prevtrain_model_alloc',
    'prev_model_free': 'prevtrain_model_free',
    'prev_init': 'prevtrain_init',
    'prev_draw_tokens': 'prevtrain_draw_tokens',
    'prev_forward': 'prevtrain_forward',
    'prev_loss_grad': 'prevtrain_loss_grad',
    'prev_train': 'prevtrain_run',
    'prev_evaluate': 'prevtrain_evaluate',
    'prev_seed_ci': 'prevtrain_seed_ci',
    # lib/math/mat.h (matrices and their vectors: mat_, mat_vec_)
    'vec_new': 'mat_vec_new',
    'vec_free': 'mat_vec_free',
    'vec_randn': 'mat_vec_randn',
    'vec_max_abs': 'mat_vec_max_abs',
    # lib/math/shapes.h (attention_shapes keeps the section's own name)
    'head_projection_params': 'shapes_head_projection_params',
    'shape_format': 'shapes_format',
    'qk_factored_params': 'shapes_qk_factored_params',
    # lib/math/softmax.h
    'logsumexp': 'softmax_logsumexp',
    'online_softmax_init': 'softmax_online_init',
    'online_softmax_rescale': 'softmax_online_rescale',
    # lib/run/csvline.h
    'csv_split': 'csvline_split',
    # lib/run/experiment.h -> lib/run/exp.h (file renamed: exp_* stay)
    'experiment_main': 'exp_main',
    # lib/run/opts.h
    'parse_size_list': 'opts_parse_size_list',
    'parse_size': 'opts_parse_size',
    'parse_ulong': 'opts_parse_ulong',
    'parse_double': 'opts_parse_double',
    'parse_bytes': 'opts_parse_bytes',
    # lib/run/provenance.h
    'output_meta': 'provenance_write_meta',
    # lib/run/table.h
    'col_nature_name': 'table_nature_name',
    'col_nature_parse': 'table_nature_parse',
    'col_nature_of': 'table_nature_of',
    'csv_num': 'table_cell_num',
    'csv_str': 'table_cell_str',
    # lib/run/verdict.h: a rule, a measure and the list of rows are verdict_ things
    'rule_none': 'verdict_rule_none',
    'rule_at_most': 'verdict_rule_at_most',
    'rule_at_least': 'verdict_rule_at_least',
    'rule_between': 'verdict_rule_between',
    'rule_ci_within': 'verdict_rule_ci_within',
    'rule_ci_above': 'verdict_rule_ci_above',
    'rule_ci_below': 'verdict_rule_ci_below',
    'rule_precision': 'verdict_rule_precision',
    'rule_cmp_name': 'verdict_rule_cmp_name',
    'rule_cmp_parse': 'verdict_rule_cmp_parse',
    'measure_as': 'verdict_measure_as',
    'measure_exact': 'verdict_measure_exact',
    'measure_time': 'verdict_measure_time',
    'measure_ci': 'verdict_measure_ci',
    'measure_stat': 'verdict_measure_stat',
    'verdicts_init': 'verdict_list_init',
    'verdicts_free': 'verdict_list_free',
    'verdicts_write_schema': 'verdict_list_write_schema',
    'verdicts_write': 'verdict_list_write',
    'verdicts_status': 'verdict_list_status',
    'verdicts_count': 'verdict_list_count',
}

# (directory, old stem, new stem): <dir>/<old>.c and .h become <dir>/<new>.c/.h
FILE_RENAMES = [
    ('lib/math', 'status', 'att'),        # att_* : the status codes and last error
    ('lib/run', 'experiment', 'exp'),     # exp_* : the experiment skeleton
    ('lib/run', 'stats', 'stat'),         # stat_*: running moments, CIs, fits
]

# exported functions whose name is not <file>_...: the section's own name
PREFIX_EXCEPTIONS = {'lib/math/shapes.h': {'attention_shapes'}}

SKIP_DIRS = ('results/', 'fuzz/corpus', '.git/')
SELF = ('tools/dev/rename.py',)
C_EXT = ('.c', '.h')
DOC_EXT = ('.md', '.tex')
# text between these two markers (in any file) is left verbatim: the rename
# table in doc/naming.md names the old functions on purpose
VERBATIM_BEGIN = 'rename.py: verbatim begin'
VERBATIM_END = 'rename.py: verbatim end'

VERBATIM_RE = re.compile(r'%s.*?%s' % (re.escape(VERBATIM_BEGIN), re.escape(VERBATIM_END)), re.S)

KEYWORDS = {'if', 'while', 'for', 'switch', 'return', 'sizeof', 'defined', '_Generic',
            '_Alignof', 'alignof', '__attribute__', 'typeof', '__typeof__', 'do', 'else',
            'case', '_Static_assert', 'static_assert', 'offsetof'}

RNG_PARAM = re.compile(r'^(?:const\s+)?gsl_rng\s*\*\s*(?:const\s+)?(?:restrict\s+)?([A-Za-z_]\w*)?$')
RNG_PARAM_ANY = re.compile(r'\bgsl_rng\s*\*(?!\*)')
RNG_ARG = re.compile(r'^(?:[A-Za-z_]\w*\s*(?:->|\.)\s*)*(?:\w*rng\w*|r|gen)(?:\s*\[[^\]]*\])?$'
                     r'|^\w*rng\w*\s*\(.*\)$', re.S)

RNG_NAMES = {'rng', 'r'}   # grown from the tree: every name declared gsl_rng *
RNG_DECL = re.compile(r'\bgsl_rng\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)')


def rng_like(arg):
    """Does this argument look like a generator: a name the tree declares as a
    gsl_rng * (or one with rng in it), possibly through a member or an index?"""
    a = ' '.join(arg.split())
    if RNG_ARG.match(a):
        return True
    m = re.match(r'^(?:[A-Za-z_]\w*\s*(?:->|\.)\s*)*([A-Za-z_]\w*)(?:\s*\[[^\]]*\])?$', a)
    return bool(m and m.group(1) in RNG_NAMES)


RNG_WORD = re.compile(r'\brng\w*|\bgsl_rng\b|^\s*\.\.\.\s*$')

reports = []


def report(path, text, pos, why):
    line = text.count('\n', 0, pos) + 1
    reports.append('%s:%d: %s' % (path, line, why))


# ---------------------------------------------------------------- C masking
def mask_c(src):
    """The source with comments blanked and string/char contents replaced by
    'x' (same length, newlines kept), and the list of comment spans."""
    out = list(src)
    spans = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '/' and i + 1 < n and src[i + 1] == '/':
            j = src.find('\n', i)
            j = n if j < 0 else j
            spans.append((i, j))
            for k in range(i, j):
                out[k] = ' '
            i = j
        elif c == '/' and i + 1 < n and src[i + 1] == '*':
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            spans.append((i, j))
            for k in range(i, j):
                if src[k] != '\n':
                    out[k] = ' '
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            for k in range(i + 1, min(j, n)):
                if src[k] != '\n':
                    out[k] = 'x'
            i = j + 1
        else:
            i += 1
    return ''.join(out), spans


OPEN, CLOSE = '([{', ')]}'


def match_close(mask, i, end=None):
    """Index of the bracket closing mask[i], or -1."""
    end = len(mask) if end is None else end
    depth = 0
    for j in range(i, end):
        c = mask[j]
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_args(mask, i, j):
    """The argument spans (start, end) of the group mask[i] = '(' .. mask[j] = ')'."""
    segs, depth, s = [], 0, i + 1
    for k in range(i + 1, j):
        c = mask[k]
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth -= 1
        elif c == ',' and depth == 0:
            segs.append((s, k))
            s = k + 1
    segs.append((s, j))
    if len(segs) == 1 and not mask[segs[0][0]:segs[0][1]].strip():
        return []
    return segs


IDENT_END = re.compile(r'([A-Za-z_]\w*)\s*$')
FNPTR_END = re.compile(r'\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*$')


def callee(mask, i):
    """(name, kind) for the group opening at i: kind 'call' (name(...)),
    'member' (x.name(...), x->name(...)), 'fnptr' ((*name)(...)), or (None, None)."""
    head = mask[max(0, i - 200):i]
    m = FNPTR_END.search(head)
    if m:
        return m.group(1), 'fnptr'
    m = IDENT_END.search(head)
    if not m or m.group(1) in KEYWORDS or m.group(1)[0].isdigit():
        return None, None
    before = head[:m.start()].rstrip()
    if before.endswith('.') or before.endswith('->'):
        return m.group(1), 'member'
    return m.group(1), 'call'


def rng_param_index(mask, segs):
    """Index of the one gsl_rng * parameter when the group is a parameter list; else None."""
    ks = [k for k, (s, e) in enumerate(segs) if RNG_PARAM.match(' '.join(mask[s:e].split()))]
    return ks[0] if len(ks) == 1 else (None if not ks else -1)


def statement_head(mask, i):
    """The text of the statement the position i is in, up to i."""
    k = max(mask.rfind(';', 0, i), mask.rfind('{', 0, i), mask.rfind('}', 0, i),
            mask.rfind('\n#', 0, i))
    return mask[k + 1:i]


def permute(src, segs, k):
    """The argument list text with argument k moved first; separators stay."""
    parts = []
    for s, e in segs:
        raw = src[s:e]
        lead = raw[:len(raw) - len(raw.lstrip())]
        trail = raw[len(raw.rstrip()):]
        parts.append((lead, raw.strip(), trail))
    order = [k] + [x for x in range(len(parts)) if x != k]
    return ','.join(parts[x][0] + parts[o][1] + parts[x][2] for x, o in enumerate(order))


# ---------------------------------------------------------------- the table of reorders
class Table:
    def __init__(self):
        self.glob = {}      # name -> (k, n)
        self.local = {}     # path -> {name -> (k, n)}
        self.types = {}     # typedef name -> (k, n)
        self.members = {}   # field/variable name of a reordered pointer type -> {(k, n)}
        self.first = {}     # name -> n: functions whose generator is already first
        self.conflict = set()


def scan_decls(path, src, mask, table):
    """Fill the table with every parameter list of path holding a gsl_rng *."""
    for i, c in enumerate(mask):
        if c != '(':
            continue
        name, kind = callee(mask, i)
        if not name or kind == 'member':
            continue
        j = match_close(mask, i)
        if j < 0:
            continue
        segs = split_args(mask, i, j)
        k = rng_param_index(mask, segs)
        if k is None:
            continue
        if k == -1:
            report(path, src, i, '%s: more than one gsl_rng * parameter, left as it is' % name)
            continue
        entry = (k, len(segs))
        if k == 0:
            table.first.setdefault(name, len(segs))
            continue
        headtxt = statement_head(mask, i)
        if kind == 'fnptr':
            if re.search(r'\btypedef\b', headtxt):
                table.types[name] = entry
            else:
                table.members.setdefault(name, set()).add(entry)
            continue
        is_static = re.search(r'\bstatic\b', headtxt) is not None
        if is_static or not (path.endswith('.h') or path.startswith('lib/')):
            table.local.setdefault(path, {})[name] = entry
        else:
            old = table.glob.get(name)
            if old is not None and old != entry:
                table.conflict.add(name)
                report(path, src, i, '%s: declared with the generator at %d of %d here, %d of %d '
                       'elsewhere; its calls are left as they are' % (name, k, len(segs), old[0], old[1]))
            table.glob[name] = entry


def scan_typed_vars(mask, table):
    """Fields and variables declared with a reordered function-pointer typedef."""
    if not table.types:
        return
    pat = re.compile(r'\b(%s)\s*(?:\*\s*)?(?:const\s+)?([A-Za-z_]\w*)\s*[;,=)\[]'
                     % '|'.join(map(re.escape, table.types)))
    for m in pat.finditer(mask):
        table.members.setdefault(m.group(2), set()).add(table.types[m.group(1)])


def lookup(table, path, name, kind):
    if kind == 'call':
        loc = table.local.get(path, {})
        if name in loc:
            return [loc[name]]
        if name in table.glob and name not in table.conflict:
            return [table.glob[name]]
        if name in table.types:
            return None
    if kind in ('call', 'member') and name in table.members:
        return sorted(table.members[name])
    return None


# ---------------------------------------------------------------- rewriting C code
def rewrite_c(path, src, table, stats):
    mask, spans = mask_c(src)
    out = []

    def rewrite(a, b):
        """src[a:b] with every group in it rewritten (recursively)."""
        res, i = [], a
        while i < b:
            if mask[i] != '(':
                nxt = mask.find('(', i, b)
                nxt = b if nxt < 0 else nxt
                res.append(src[i:nxt])
                i = nxt
                continue
            j = match_close(mask, i, b)
            if j < 0:
                res.append(src[i:b])
                break
            segs = split_args(mask, i, j)
            inner = [(rewrite(s, e), s, e) for s, e in segs]
            name, kind = callee(mask, i)
            k = rng_param_index(mask, segs) if segs else None
            newk = None
            if k is not None and k > 0:
                newk = k                                   # a parameter list
            elif k is None and name and kind in ('call', 'member'):
                cands = lookup(table, path, name, kind)
                if cands:
                    fit = [c for c in cands if c[1] == len(segs)]
                    if kind == 'member' or len(cands) > 1 or name in table.members and kind == 'call' \
                            and name not in table.local.get(path, {}) and name not in table.glob:
                        fit = [c for c in fit if rng_like(mask[segs[c[0]][0]:segs[c[0]][1]])]
                    if len(fit) == 1:
                        newk = fit[0][0]
                    elif not fit and (kind == 'member' and any(c[1] == len(segs) for c in cands)
                                      or any(rng_like(mask[s:e]) for s, e in segs)):
                        report(path, src, i, '%s(...) with %d arguments: no reorder fits (%s); left as it is'
                               % (name, len(segs), ', '.join('generator at %d of %d' % c for c in cands)))
                    elif len(fit) > 1:
                        report(path, src, i, '%s(...): ambiguous reorder; left as it is' % name)
            if newk:
                # permute the rewritten arguments, keeping the separators
                texts = []
                for t, s, e in inner:
                    texts.append(t)
                body = permute_texts(texts, newk)
                res.append('(' + body + ')')
                stats[name or '?'] = stats.get(name or '?', 0) + 1
            else:
                res.append('(' + ','.join(t for t, s, e in inner) + ')' if segs else src[i:j + 1])
            i = j + 1
        return ''.join(res)

    new = rewrite(0, len(src))
    # comments: line-level, like the docs
    if new != src:
        mask2, spans = mask_c(new)
    else:
        spans = spans
    pieces, last = [], 0
    for s, e in spans:
        if VERBATIM_BEGIN in new[s:e]:
            continue
        pieces.append(new[last:s])
        pieces.append(rewrite_lines(path, new, s, e, table, stats))
        last = e
    pieces.append(new[last:])
    return ''.join(pieces)


def permute_texts(texts, k):
    parts = [(t[:len(t) - len(t.lstrip())], t.strip(), t[len(t.rstrip()):]) for t in texts]
    order = [k] + [x for x in range(len(parts)) if x != k]
    return ','.join(parts[x][0] + parts[o][1] + parts[x][2] for x, o in enumerate(order))


LINE_CALL = re.compile(r'([A-Za-z_]\w*|\(\s*\*\s*[A-Za-z_]\w*\s*\))\s*\(')


def rewrite_lines(path, text, a, b, table, stats):
    """Calls and parameter lists in prose (a comment, a .md or .tex file):
    only those that close on their own line are rewritten; the rest is reported."""
    lines = text[a:b].split('\n')
    pos = a
    out = []
    for line in lines:
        out.append(rewrite_line(path, text, pos, line, table, stats))
        pos += len(line) + 1
    return '\n'.join(out)


def rewrite_line(path, text, pos, line, table, stats):
    names = set(table.glob) | set(table.types) | set(table.members) | set(table.local.get(path, {}))
    if not names and not RNG_PARAM_ANY.search(line):
        return line
    res, i = [], 0
    for m in LINE_CALL.finditer(line):
        if m.start() < i:
            continue
        raw = m.group(1)
        name = re.sub(r'[(\s*)]', '', raw)
        o = m.end() - 1
        j = match_close(line, o)
        is_param = False
        if j >= 0:
            segs = split_args(line, o, j)
            k = rng_param_index(line, segs)
            is_param = k is not None
        if name not in names and not (j >= 0 and is_param and k and k > 0):
            if j < 0 and RNG_PARAM_ANY.search(line[o:]) and not line[o:].lstrip('( ').startswith('gsl_rng'):
                report(path, text, pos + o, 'a parameter list in prose (%s) continues on the next line: '
                       'put the generator first by hand' % name)
            continue
        if j < 0:
            specific = name in table.glob or name in table.types or name in table.local.get(path, {})
            if specific or name in names and RNG_WORD.search(line[o:]):
                report(path, text, pos + o, '%s( in prose continues on the next line: check the '
                       'argument order by hand' % name)
            continue
        if is_param:
            newk = k if k and k > 0 else None
        else:
            loc = table.local.get(path, {})
            cands = [loc[name]] if name in loc else [table.glob[name]] if name in table.glob else \
                sorted(table.members.get(name, ())) or ([table.types[name]] if name in table.types else [])
            fit = [c for c in cands if c[1] == len(segs)]
            if len(fit) > 1:
                fit = [c for c in fit if rng_like(line[segs[c[0]][0]:segs[c[0]][1]])]
            newk = fit[0][0] if len(fit) == 1 else None
            if newk is None:
                specific = name in table.glob or name in loc
                if cands and specific and any(RNG_WORD.search(line[s:e]) for s, e in segs):
                    report(path, text, pos + o, '%s(%s) in prose: arguments do not match the '
                           'declaration; check the order by hand' % (name, line[o + 1:j]))
                continue
        if newk:
            res.append(line[i:o + 1] + permute(line, segs, newk) + ')')
            stats[name] = stats.get(name, 0) + 1
            i = j + 1
    res.append(line[i:])
    return ''.join(res)


# ---------------------------------------------------------------- renames
def rename_text(path, text, counts):
    py = path.endswith('.py')
    if path.endswith(C_EXT) and VERBATIM_BEGIN not in text:
        return rename_c_aligned(text, counts)
    # the verbatim regions stay as they are
    chunks = re.split(r'(%s.*?%s)' % (re.escape(VERBATIM_BEGIN), re.escape(VERBATIM_END)), text, flags=re.S)
    for ci in range(0, len(chunks), 2):
        chunks[ci] = rename_chunk(chunks[ci], py, counts)
    return ''.join(chunks)


def rename_chunk(t, py, counts):
    def sub_ident(m):
        old = m.group(1)
        before = t[max(0, m.start() - 2):m.start()]
        if before.endswith('.') or before.endswith('->'):
            return old                  # a member or an attribute (np.logsumexp), not ours
        counts[old] = counts.get(old, 0) + 1
        return RENAMES[old]
    t = IDENT_RE.sub(sub_ident, t)
    for d, old, new in FILE_RENAMES:
        def sub_path(m, new=new, key='%s/%s' % (d, old)):
            counts[key] = counts.get(key, 0) + 1
            return m.group(1) + new + (m.group(2) or '')
        # lib/run/stats, lib/run/stats.c (.h .o .d), and a bare stats.h / "stats.h"
        t = re.sub(r'((?<![\w-])%s/)%s((?:\.[chod])?)(?![\w])' % (re.escape(d), re.escape(old)), sub_path, t)
        t = re.sub(r'((?<![\w./-]))%s(\.[chod])(?![\w])' % re.escape(old), sub_path, t)
    return t


def rename_c_aligned(t, counts):
    """The renames of a C file, line by line; a continuation line aligned one
    past an opening parenthesis that moved (a longer name before it) moves with it."""
    old = t.split('\n')
    new = [rename_chunk(x, False, counts) for x in old]
    if new == old:
        return t
    mask, _ = mask_c(t)
    starts, pos = [], 0
    for x in old:
        starts.append(pos)
        pos += len(x) + 1
    line_of = lambda p: bisect.bisect_right(starts, p) - 1
    groups = []          # (open line, open column, close line, open position)
    stack = []
    for i, c in enumerate(mask):
        if c == '(':
            stack.append(i)
        elif c == ')' and stack:
            o = stack.pop()
            lo, lc = line_of(o), line_of(i)
            if lc > lo:
                groups.append((lo, o - starts[lo], lc, o))
    if not groups:
        return '\n'.join(new)
    shift = [0] * len(old)
    for k in range(len(old)):
        indent = len(old[k]) - len(old[k].lstrip(' '))
        best = None
        for g in groups:
            if g[0] < k <= g[2] and indent == g[1] + 1 and (best is None or g[3] > best[3]):
                best = g
        if best is None:
            continue
        lo, col = best[0], best[1]
        dummy = {}
        new_col = shift[lo] + len(rename_chunk(old[lo][:col], False, dummy))
        if new_col != col:
            shift[k] = new_col - col
            new[k] = ' ' * (new_col + 1) + new[k].lstrip(' ')
    return '\n'.join(new)


# a whole identifier; `\bname` in a regex counts as one too
IDENT_RE = re.compile(r'(?:(?<![A-Za-z0-9_])|(?<=\\b))(%s)(?![A-Za-z0-9_])'
                      % '|'.join(sorted(map(re.escape, RENAMES), key=len, reverse=True)))


# ---------------------------------------------------------------- the tree
def tree_files(root, use_git):
    if use_git:
        r = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=root,
                           capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write('rename.py: git ls-files failed in %s: %s' % (root, r.stderr))
            sys.exit(3)
        files = [f for f in r.stdout.split('\0') if f]
    else:
        files = []
        for d, dirs, fs in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith('.') and not x.startswith('build')
                       and not x.startswith('bin') and x != 'out']
            for f in fs:
                files.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(f for f in files if not f.startswith(SKIP_DIRS) and f not in SELF
                  and os.path.isfile(os.path.join(root, f)))


def read_text(full):
    with open(full, 'rb') as fh:
        data = fh.read()
    if b'\0' in data[:8192]:
        return None
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return None


def main():
    ap = argparse.ArgumentParser(prog='rename.py', description='issue 17 renames and RNG-first reorders')
    ap.add_argument('--root', default=None, help='the tree (default: the git top level of the cwd)')
    ap.add_argument('--dry-run', action='store_true', help='print what would change; write nothing')
    ap.add_argument('--no-git', action='store_true', help='walk the folder and rename files with os.rename')
    ap.add_argument('--quiet', action='store_true', help='only the check-by-hand lines')
    a = ap.parse_args()
    root = a.root
    if root is None:
        r = subprocess.run(['git', 'rev-parse', '--show-toplevel'], capture_output=True, text=True)
        if r.returncode:
            ap.error('not in a git tree; give --root DIR')
        root = r.stdout.strip()
    if not os.path.isdir(root):
        ap.error('--root %s: not a folder' % root)
    files = tree_files(root, not a.no_git)
    texts = {}
    for f in files:
        t = read_text(os.path.join(root, f))
        if t is not None:
            texts[f] = t

    # 0. a new name the tree already uses for something else: that rename is skipped
    collisions(texts)
    # 1-2. renames (by content), before the reorders so that they see new names
    counts = {}
    new = {f: rename_text(f, t, counts) for f, t in texts.items()}
    # file renames: the new path of each file
    moves = {}
    for d, old, nw in FILE_RENAMES:
        for ext in ('.c', '.h'):
            src, dst = '%s/%s%s' % (d, old, ext), '%s/%s%s' % (d, nw, ext)
            if src in new:
                if dst in new:
                    reports.append('%s and %s both exist: not moved' % (src, dst))
                else:
                    moves[src] = dst
    # 3. the reorders: the table from every C file's declarations
    table = Table()
    for f, t in new.items():
        if f.endswith(C_EXT):
            scan_decls(f, t, mask_c(t)[0], table)
    for f, t in new.items():
        if f.endswith(C_EXT):
            scan_typed_vars(mask_c(t)[0], table)
    for f, t in new.items():
        if f.endswith(C_EXT):
            RNG_NAMES.update(RNG_DECL.findall(mask_c(t)[0]))
    reorders = {}
    for f in list(new):
        if f.endswith(C_EXT):
            new[f] = rewrite_c(f, new[f], table, reorders)
        elif f.endswith(DOC_EXT):
            t, pieces, last = new[f], [], 0
            for m in VERBATIM_RE.finditer(t):       # the verbatim regions stay
                pieces.append(rewrite_lines(f, t, last, m.start(), table, reorders))
                pieces.append(m.group(0))
                last = m.end()
            pieces.append(rewrite_lines(f, t, last, len(t), table, reorders))
            new[f] = ''.join(pieces)

    # lint the result: calls that still look like the old order
    after = Table()
    for f, t in new.items():
        if f.endswith(C_EXT):
            scan_decls(f, t, mask_c(t)[0], after)
    lint(new, after)
    check_prefixes({moves.get(f, f): t for f, t in new.items()})

    changed = [f for f in new if new[f] != texts[f]]
    if not a.quiet:
        for old in sorted(counts):
            print('rename.py: renamed %-28s -> %-32s %4d' % (old, RENAMES.get(old) or
                  [n for d, o, n in FILE_RENAMES if '%s/%s' % (d, o) == old][0], counts[old]))
        for name in sorted(reorders):
            print('rename.py: generator first in %-40s %4d' % (name, reorders[name]))
        for s, d in sorted(moves.items()):
            print('rename.py: move %s -> %s' % (s, d))
        print('rename.py: %d files changed, %d moved%s' % (len(changed), len(moves),
              ' (dry run: nothing written)' if a.dry_run else ''))
    if not a.dry_run:
        try:
            for f in changed:
                with open(os.path.join(root, f), 'w', encoding='utf-8', newline='') as fh:
                    fh.write(new[f])
            for s, d in sorted(moves.items()):
                if a.no_git:
                    os.rename(os.path.join(root, s), os.path.join(root, d))
                else:
                    r = subprocess.run(['git', 'mv', s, d], cwd=root, capture_output=True, text=True)
                    if r.returncode:
                        sys.stderr.write('rename.py: git mv %s %s: %s' % (s, d, r.stderr))
                        return 3
        except OSError as e:
            sys.stderr.write('rename.py: %s\n' % e)
            return 3
    for r in reports:
        print('rename.py: check by hand: ' + r)
    return 1 if reports else 0


def lint(new, after):
    """Report calls of generator-first functions whose first argument does not
    look like a generator while another one does (an old-order call)."""
    firsts = after.first
    for f, t in new.items():
        if not f.endswith(C_EXT):
            continue
        mask, _ = mask_c(t)
        for m in re.finditer(r'\b(%s)\s*\(' % '|'.join(map(re.escape, firsts)) if firsts else r'(?!x)x', mask):
            i = m.end() - 1
            name, kind = callee(mask, i)
            if kind != 'call':
                continue
            j = match_close(mask, i)
            if j < 0:
                continue
            segs = split_args(mask, i, j)
            if not segs or rng_param_index(mask, segs) is not None:
                continue
            args = [' '.join(t[s:e].split()) for s, e in segs]
            if not rng_like(args[0]) and any(rng_like(x) for x in args[1:]):
                report(f, t, i, '%s(%s): the generator looks not first (an old-order call?)'
                       % (name, ', '.join(args)))
        # parameter lists in code still holding the generator elsewhere
    for name, (k, n) in after.glob.items():
        reports.append('%s: a declaration still has the generator at %d of %d' % (name, k, n))
    for path, d in after.local.items():
        for name, (k, n) in d.items():
            reports.append('%s: %s still has the generator at %d of %d' % (path, name, k, n))


def collisions(texts):
    """Drop from RENAMES every row whose new name is already an identifier of the
    tree's C code while the old one is still used: renaming would merge two
    functions (or the tree is half renamed). Reported, not renamed."""
    words = {}
    for f, t in texts.items():
        if f.endswith(C_EXT):
            for w in set(re.findall(r'[A-Za-z_]\w*', mask_c(t)[0])):
                words.setdefault(w, f)
    global IDENT_RE
    for old, new in sorted(RENAMES.items()):
        if new in words and old in words:
            reports.append('%s -> %s: %s already names something in %s; not renamed (choose another '
                           'new name in RENAMES)' % (old, new, new, words[new]))
            del RENAMES[old]
    IDENT_RE = re.compile(r'(?:(?<![A-Za-z0-9_])|(?<=\\b))(%s)(?![A-Za-z0-9_])'
                          % '|'.join(sorted(map(re.escape, RENAMES), key=len, reverse=True)))


def check_prefixes(texts):
    """Report every function a lib/<layer>/<file>.h declares whose name does not
    start with <file>_ (the naming rule), so that new code is caught too."""
    for f, t in sorted(texts.items()):
        m = re.match(r'lib/[^/]+/([^/]+)\.h$', f)
        if not m:
            continue
        prefix = m.group(1) + '_'
        mask, _ = mask_c(t)
        depth, level = 0, []
        for c in mask:
            level.append(depth)
            depth += (c in '({') - (c in ')}')
        # the lines of preprocessor directives, continuations included
        pre, cont = [], False
        for ln in mask.split('\n'):
            d = cont or ln.lstrip().startswith('#')
            pre.extend([d] * (len(ln) + 1))
            cont = d and ln.rstrip().endswith('\\')
        for g in re.finditer(r'\(', mask):
            i = g.start()
            if level[i] != 0 or pre[i]:
                continue
            name, kind = callee(mask, i)
            if kind != 'call' or name.startswith(prefix) or name in PREFIX_EXCEPTIONS.get(f, ()):
                continue
            head = statement_head(mask, i)
            words = re.findall(r'[A-Za-z_]\w*', head[:head.rfind(name)])
            if not words or 'typedef' in words or '=' in head or head.rstrip().endswith(','):
                continue
            if name.isupper():
                continue                                  # a macro's use: NAME(...)
            report(f, t, i, '%s: an exported function whose name does not start with %s '
                   '(doc/naming.md); add it to RENAMES or PREFIX_EXCEPTIONS' % (name, prefix))


if __name__ == '__main__':
    sys.exit(main())

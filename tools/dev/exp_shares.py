#!/usr/bin/env python3
"""exp_shares.py - lines of each experiment, and the share that is the claim's
own computation and its verdicts (issue 17's measure, made repeatable).

    python3 tools/dev/exp_shares.py [--ref GIT-REF] [experiments/*.c ...]

A code line is a line with code (not blank, not only a comment). Each is
classed by a fixed rule:
  verdict   a statement that adds a verdict row or a summary line
            (verdict_claim/identity/control/reported/headline/summary,
            verdict_add, verdict_headline), every line of it;
  plumbing  includes, typedefs, table column lists, stat index enums and
            lists, option tables, main(); the bodies of functions whose
            name says allocation, freeing, scratch, streams or writing;
            in any function, lines that configure or call the Monte Carlo
            engine, write tables or provenance, allocate or free, or only
            pass an error on (return st/rc, if (st) return ...), and lone
            braces;
  claim     every other code line (the draw, the formulas, the reductions
            that turn statistics into the quantities the verdicts test).
Prints one row per file: lines, code lines, claim, verdict, plumbing, and
(claim + verdict) / code lines; then the totals.
"""
import re
import subprocess
import sys

VERDICT = re.compile(r'^\s*(?:if\s*\(.*\)\s*)?(?:\(?rc\s*=\s*|st\s*=\s*|\|\|\s*\(rc\s*=\s*|return\s+)?'
                     r'(verdict_claim|verdict_identity|verdict_control|verdict_reported|experiment_headline|experiment_summary'
                     r'|experiment_summary_measure|verdict_add|verdict_headline)\s*\(')
PLUMB_LINE = re.compile(
    r'(\bmc_config\b|\bcfg\.|\bexp_mc\(|\bmc_run\(|\bsweep_(run|grid_init|axis|axis_x|axis_cases|result_free|def)'
    r'|\bSWEEP_DEF|\bdef\.|\bdc\.|\bdh\.|TABLE_WRITE|table_write|TABLE_OPEN|table_row|table_commit'
    r'|\bexp_meta\(|\bmem_(calloc|free)\(|\bmat_free\(|\bmat_vec_free\(|\bfree\(|\bcalloc\(|\bmalloc\('
    r'|head_state_free|head_state_alloc|head_grads_alloc|head_grads_free|scratch_(alloc|free)'
    r'|gsl_rng_free|rng_new\(|att_alloc_status|^\s*return\s+(st|rc|ATT_OK)\s*;|^\s*if\s*\((st|rc)\)\s*return'
    r'|^\s*(int\s+)?(st|rc)\s*=\s*ATT_OK\s*;|^\s*int\s+(st|rc)\s*;|^\s*[{}]\s*;?\s*$|usage_error\()')
PLUMB_FUNC = re.compile(r'(alloc|free|scratch|stream|write_|main|heads_free|_cols?\b|print)')
TOP_PLUMB = re.compile(r'^\s*(#include|#define|typedef|static const table_col|static const char \*const'
                       r'|enum\b|SWEEP_STATS|COL|static const opt_spec|\{"|\{NULL|static const experiment_def'
                       r'|\}|struct|[A-Za-z_]+\([A-Za-z_]+, )')


def strip_comments(text):
    # remove /* */ and // comments, keep line structure
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return ''.join(out)


def classify(text):
    lines = strip_comments(text).split('\n')
    depth, func, counts = 0, None, {'claim': 0, 'verdict': 0, 'plumbing': 0}
    in_verdict = False
    pending = ''
    for raw in lines:
        line = raw.rstrip()
        if not line.strip():
            continue
        if depth == 0:
            m = re.match(r'^\s*(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(', line)
            if m and not line.strip().startswith(('#', 'typedef')) and ';' not in line:
                pending = m.group(1)
        if in_verdict or (depth > 0 and VERDICT.search(line)):
            kind = 'verdict'
            in_verdict = not line.rstrip().endswith(';') and not line.rstrip().endswith('{')
        elif depth == 0:
            kind = 'plumbing' if (TOP_PLUMB.search(line) or pending == 'main' or not pending) else 'claim'
            if pending and PLUMB_FUNC.search(pending):
                kind = 'plumbing'
        elif func and PLUMB_FUNC.search(func):
            kind = 'plumbing'
        elif PLUMB_LINE.search(line):
            kind = 'plumbing'
        else:
            kind = 'claim'
        counts[kind] += 1
        opened, closed = line.count('{'), line.count('}')
        if depth == 0 and opened > closed and pending:
            func = pending
        depth += opened - closed
        if depth <= 0:
            depth, func = 0, None
            if closed:
                pending = ''
    return counts


def main(argv):
    ref = None
    if len(argv) > 1 and argv[1] == '--ref':
        ref, argv = argv[2], [argv[0]] + argv[3:]
    files = argv[1:]
    if not files:
        out = subprocess.run(['git', 'ls-tree', '--name-only', ref or 'HEAD', 'experiments/'],
                             capture_output=True, text=True, check=True).stdout.split()
        files = sorted(f for f in out if f.endswith('.c'))
    print('| experiment | lines | code | claim | verdicts | plumbing | claim+verdicts share |')
    print('|---|---|---|---|---|---|---|')
    tot = {'lines': 0, 'code': 0, 'claim': 0, 'verdict': 0, 'plumbing': 0}
    for f in files:
        if ref:
            text = subprocess.run(['git', 'show', f'{ref}:{f}'], capture_output=True, text=True,
                                  check=True).stdout
        else:
            text = open(f).read()
        c = classify(text)
        nlines = text.count('\n')
        code = sum(c.values())
        share = (c['claim'] + c['verdict']) / code if code else 0.0
        name = f.split('/')[-1][:-2]
        print(f"| {name} | {nlines} | {code} | {c['claim']} | {c['verdict']} | {c['plumbing']} | {share:.0%} |")
        tot['lines'] += nlines
        tot['code'] += code
        for k in c:
            tot[k] += c[k]
    share = (tot['claim'] + tot['verdict']) / tot['code'] if tot['code'] else 0.0
    print(f"| total | {tot['lines']} | {tot['code']} | {tot['claim']} | {tot['verdict']} | "
          f"{tot['plumbing']} | {share:.0%} |")


if __name__ == '__main__':
    main(sys.argv)

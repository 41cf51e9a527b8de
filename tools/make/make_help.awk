# make_help.awk - `make help`: every target of the Makefile, with its "## " text.
#   awk -f tools/make/make_help.awk Makefile
# Reads only the Makefile itself (never the build/*.d dependency files that
# make includes). A target is a rule "name: ..." (name in letters, digits and
# -_.) or a name declared .PHONY; its text is what follows "## " on its rule.
# Targets with a text come first, in the Makefile's order; a .PHONY target with
# a rule but no text is listed after them, so no target is ever missing.
function add(t) { if (!(t in seen)) { seen[t] = 1; order[++n] = t } }
{
    line = $0
    while (line ~ /\\$/ && (getline nxt) > 0) line = substr(line, 1, length(line) - 1) " " nxt
}
line ~ /^\.PHONY:/ {
    sub(/^\.PHONY:/, "", line)
    k = split(line, w, /[ \t]+/)
    for (i = 1; i <= k; i++) if (w[i] != "") phony[w[i]] = 1
    next
}
line ~ /^[A-Za-z0-9][A-Za-z0-9_.-]*:/ && line !~ /^[^:]*:[:!?]?=/ {
    t = line; sub(/:.*/, "", t)
    add(t); rule[t] = 1
    if (line ~ /## /) { d = line; sub(/.*## /, "", d); if (!(t in text)) text[t] = d }
}
function show(t, d,   w, k, i, out, col) {
    k = split(d, w, / /); out = sprintf("  %-13s", t); col = length(out)
    for (i = 1; i <= k; i++) {
        if (col + 1 + length(w[i]) > 79 && col > 16) { print out; out = sprintf("%15s", ""); col = 15 }
        out = out " " w[i]; col += 1 + length(w[i])
    }
    print out
}
END {
    print "make <target>, where <target> is one of:"
    for (i = 1; i <= n; i++) if (order[i] in text) show(order[i], text[order[i]])
    m = 0
    for (i = 1; i <= n; i++) if (!(order[i] in text) && (order[i] in phony)) other[++m] = order[i]
    if (m) {
        s = other[1]; for (i = 2; i <= m; i++) s = s ", " other[i]
        show("also", s " (steps of the targets above)")
    }
}

# shellcheck shell=sh
# comma_locale.sh - sourced (from the top of the checkout) by the suites that run the explorer
# under a decimal-comma locale (test_tqfk_locale.sh, test_explorer_tui.sh): sets COMMA_LOC to
# de_DE.UTF-8 when it writes 0.5 as "0,5", else to nothing. When the system has no such
# locale, one is built with localedef once into $BUILD/locale/ (1.1 CPU s a build: each suite
# built its own, at every make check) and LOCPATH is exported; a built one that no longer
# writes "0,5" (glibc upgraded) is built again. Two suites building at once: the first rename
# wins, the other's copy is dropped.
COMMA_LOC=de_DE.UTF-8
# comma_ok [LOCPATH]: the locale writes 0.5 as 0,5
comma_ok() { [ "$(env ${1:+"LOCPATH=$1"} LC_ALL=$COMMA_LOC printf %.1f 0.5 2>/dev/null)" = 0,5 ]; }
if ! comma_ok ""; then
    cl_dir=$(mkdir -p "${BUILD:-build}/locale" && cd "${BUILD:-build}/locale" && pwd) || cl_dir=""
    if [ -n "$cl_dir" ] && ! comma_ok "$cl_dir" && command -v localedef >/dev/null 2>&1 &&
       [ -f /usr/share/i18n/locales/de_DE ] && cl_new=$(mktemp -d "$cl_dir/.new.XXXXXX"); then
        # (its exit status is 1 on mere warnings: the "0,5" test below judges the result)
        localedef -i de_DE -f UTF-8 "$cl_new/$COMMA_LOC" >/dev/null 2>&1
        # a stale build out of the way (unless another suite has just put a good one there)
        comma_ok "$cl_dir" || rm -rf "${cl_dir:?}/$COMMA_LOC"
        mv -T "$cl_new/$COMMA_LOC" "$cl_dir/$COMMA_LOC" 2>/dev/null
        rm -rf "$cl_new"
    fi
    if [ -n "$cl_dir" ] && comma_ok "$cl_dir"; then LOCPATH=$cl_dir; export LOCPATH
    else COMMA_LOC=""; fi
fi

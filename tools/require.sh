#!/bin/sh
# SPDX-License-Identifier: MIT
# require.sh cunit [PREFIX] | gnuplot: makes sure a build dependency is there. Installs it with
# apt-get where that works (as root, or through sudo without a password); otherwise prints the
# exact command and exits 1.
set -u
what=$1 prefix=${2:-}
case $what in
cunit)
    pkg=libcunit1-dev other=CUnit-devel
    if [ -n "$prefix" ]; then
        lib=$prefix/lib/x86_64-linux-gnu/libcunit.a
        [ -f "$prefix/include/CUnit/Basic.h" ] && [ -f "$lib" ] && exit 0
        echo "error: CUNIT_PREFIX=$prefix has no include/CUnit/Basic.h and" \
             "lib/x86_64-linux-gnu/libcunit.a" >&2
        exit 1
    fi
    have() {
        printf '#include <CUnit/Basic.h>\nint main(void){return CU_initialize_registry();}\n' |
            ${HOST_CC:-gcc} -x c - -o /dev/null -lcunit >/dev/null 2>&1
    } ;;
gnuplot) pkg=gnuplot-nox other=gnuplot; have() { command -v gnuplot >/dev/null 2>&1; } ;;
*) echo "require.sh: unknown dependency '$what' (cunit or gnuplot)" >&2; exit 2 ;;
esac
have && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
if command -v apt-get >/dev/null 2>&1 && $sudo true 2>/dev/null; then
    echo "installing $pkg (needed for $what) with apt-get"
    { $sudo apt-get install -y -q "$pkg" ||
        { $sudo apt-get update -q && $sudo apt-get install -y -q "$pkg"; }; } >/dev/null 2>&1 &&
        have && exit 0
fi
echo "error: $what is missing; install it with: sudo apt-get install $pkg" \
     "(Fedora: sudo dnf install $other)" >&2
exit 1

#!/usr/bin/env bash
# Installs the C library of fibforge under PREFIX, as C build systems expect:
#   PREFIX/include/fibforge.h
#   PREFIX/lib/libfibforge_c.so.X.Y.Z, its soname link (libfibforge_c.so.0.1 before 1.0,
#     libfibforge_c.so.X after) and the development link libfibforge_c.so
#   PREFIX/lib/libfibforge_c.a
#   PREFIX/lib/pkgconfig/fibforge.pc      (cc app.c $(pkg-config --cflags --libs fibforge))
# and prints how to build a program against it: outside the dynamic linker's path the program
# needs a run path (-Wl,-rpath,PREFIX/lib) or LD_LIBRARY_PATH=PREFIX/lib to start.
#
# Usage: tools/install-c.sh PREFIX
#   Builds with `cargo build --release -p fibforge-c` first, unless FIBFORGE_C_LIB_DIR names a
#   directory that already holds libfibforge_c.so and libfibforge_c.a (the tests use this).
#   LIBDIR (default PREFIX/lib) and DESTDIR (staged installs) are honoured.
set -euo pipefail

die() { echo "install-c.sh: $*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: tools/install-c.sh PREFIX"
prefix=$1
case $prefix in /*) ;; *) die "PREFIX must be an absolute path (pkg-config files name it): '$prefix'" ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
header=$root/crates/fibforge-c/include/fibforge.h
libdir=${LIBDIR:-$prefix/lib}
dest=${DESTDIR:-}

if [ -n "${FIBFORGE_C_LIB_DIR:-}" ]; then
  built=$FIBFORGE_C_LIB_DIR
else
  (cd "$root" && cargo build --release -p fibforge-c)
  built=${CARGO_TARGET_DIR:-$root/target}/release
fi
for f in libfibforge_c.so libfibforge_c.a; do
  [ -f "$built/$f" ] || die "$built/$f not found (build it with cargo build --release -p fibforge-c)"
done

# The version comes from the header's macros, which a test keeps equal to the crate's.
macro() { sed -n "s/^#define FIBFORGE_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header"; }
major=$(macro MAJOR) minor=$(macro MINOR) patch=$(macro PATCH)
[ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] || die "no FIBFORGE_VERSION_* macros in $header"
version=$major.$minor.$patch
# The soname rule of crates/fibforge-c/build.rs.
if [ "$major" = 0 ]; then abi=0.$minor; else abi=$major; fi

install -d "$dest$prefix/include" "$dest$libdir/pkgconfig"
install -m 644 "$header" "$dest$prefix/include/fibforge.h"
install -m 755 "$built/libfibforge_c.so" "$dest$libdir/libfibforge_c.so.$version"
ln -sf "libfibforge_c.so.$version" "$dest$libdir/libfibforge_c.so.$abi"
ln -sf "libfibforge_c.so.$abi" "$dest$libdir/libfibforge_c.so"
install -m 644 "$built/libfibforge_c.a" "$dest$libdir/libfibforge_c.a"
# libdir relative to prefix where it lies there, so that pkg-config --define-prefix works.
case $libdir in "$prefix"/*) pc_libdir=\${prefix}${libdir#"$prefix"} ;; *) pc_libdir=$libdir ;; esac
cat > "$dest$libdir/pkgconfig/fibforge.pc" <<PC
# A program linked with these flags loads libfibforge_c.so.$abi at run time from the dynamic
# linker's path: where libdir is not on it, link with -Wl,-rpath,\${libdir} (the run path) or
# run with LD_LIBRARY_PATH=\${libdir}, or link \${libdir}/libfibforge_c.a itself.
prefix=$prefix
libdir=$pc_libdir
includedir=\${prefix}/include

Name: fibforge
Description: Longest-prefix-match (IP routing lookup) tables with lock-free readers
Version: $version
URL: https://github.com/fibforge/fibforge
Libs: -L\${libdir} -lfibforge_c
Libs.private: -lpthread -ldl -lm
Cflags: -I\${includedir}
PC
echo "installed fibforge $version (C) under $dest$prefix"
# How to build and run against it: a private prefix is not on the dynamic linker's path, and
# a program linked there without a run path fails to start ("libfibforge_c.so.$abi: cannot
# open shared object file").
cat <<HOW
build: cc app.c \$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs fibforge) -Wl,-rpath,$libdir
  -Wl,-rpath,$libdir records where libfibforge_c.so.$abi is; without it (or an ldconfig entry for
  $libdir) run the program with LD_LIBRARY_PATH=$libdir, or link $libdir/libfibforge_c.a instead.
HOW

#!/usr/bin/env bash
# stage_source_build.sh: stages a PostgreSQL major built from source here
# (/usr/local/pgsql-MAJOR, test/lib/postgres_source.sh) and the extension
# built for it into .gpu/, for test/gpu/gpu_session.sh on the GPU machine.
#
#   bash test/gpu/stage_source_build.sh 18
#
# ../shared/gpu/pg-bundle.sh packs Debian's layout (/usr/lib/postgresql/V
# and /usr/share/postgresql/V); pg-up.sh unpacks a bundle and looks for the
# server under pg/usr/lib/postgresql/V.  A source build finds its share, lib
# and pgxs folders relative to its bin folder, so its whole prefix goes
# there unchanged, and the extension's `make install DESTDIR=` tree is moved
# to match.  The shared libraries the binaries need (glibc excepted) travel
# in pg/libs, as in pg-bundle.sh.  Writes .gpu/pg.tar.gz, .gpu/stage,
# .gpu/pg-up.sh and .gpu/bin (the engine's test binaries and kernel_bench,
# built with nvcc).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
major=${1:?usage: stage_source_build.sh MAJOR}
prefix=/usr/local/pgsql-$major
[ -x "$prefix/bin/postgres" ] || { echo "no PostgreSQL $major in $prefix (run GH_PG_MAJOR=$major bash test/setup_and_demo.sh)" >&2; exit 1; }
pg_config=$prefix/bin/pg_config

mkdir -p .gpu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/pg
mkdir -p "$root/usr/lib/postgresql" "$root/libs"
cp -a "$prefix" "$root/usr/lib/postgresql/$major"
rm -rf "$root/usr/lib/postgresql/$major/include"
find "$root/usr/lib/postgresql/$major" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
    { xargs -0 ldd 2>/dev/null || true; } | awk '/=> \//{print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libresolv|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$root/libs/"; done
tar -C "$stage" -czf .gpu/pg.tar.gz pg
echo "wrote .gpu/pg.tar.gz ($(du -h .gpu/pg.tar.gz | cut -f1)) with $("$pg_config" --version)"

make -s -j"$(nproc)" PG_CONFIG="$pg_config" >/dev/null
rm -rf .gpu/stage "$stage/ext"
make -s PG_CONFIG="$pg_config" install DESTDIR="$stage/ext" >/dev/null
mkdir -p .gpu/stage/usr/lib/postgresql
mv "$stage/ext$prefix" ".gpu/stage/usr/lib/postgresql/$major"
cp ../shared/gpu/pg-up.sh .gpu/

mkdir -p .gpu/bin
cmake --build build -j"$(nproc)" >/dev/null
for t in engine_tests cuda_backend_tests kernel_bench; do
    f=$(find build -name "$t" -type f -perm -u+x | head -n 1)
    [ -z "$f" ] || cp "$f" .gpu/bin/
done
ls .gpu/bin

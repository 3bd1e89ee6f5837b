#!/usr/bin/env bash
# run_package_checks.sh: the Debian package as a user installs it.
#
#   bash test/packaging/run_package_checks.sh 15
#
# 1. builds the source tree's Debian package with dpkg-buildpackage -us -uc
#    -b, in a copy of the tree (dpkg-buildpackage writes into the parent
#    folder), for the majors of debian/pgversions whose server packages are
#    installed: postgresql-15-gpu-histogram on Debian 12, with the CUDA
#    backend where nvcc is, built here for one target only
#    (GH_PACKAGE_CUDA_ARCHITECTURES, default 90-real: the default list's
#    six take the suite's longest compile again, and no GPU runs it here);
#    its build-time tests are left to step 3 (DEB_BUILD_OPTIONS=nocheck);
# 2. checks what the package holds: the library, the control file, every
#    SQL script, and its dependency on Debian's server;
# 3. installs it with dpkg into a Debian 12 chroot (mmdebstrap) that holds
#    only Debian's PostgreSQL 15, and there runs pg_buildext installcheck:
#    the regression tests that reach what a package can get wrong (below;
#    GH_PACKAGE_REGRESS=all runs every one) against the installed package,
#    on a throwaway cluster with the library preloaded; then purges it, so
#    the chroot stays clean for the next run.
#
# 18 is a package of Debian's sid, whose binaries need a newer glibc than
# Debian 12's: there the package is built inside the sid chroot the
# TimescaleDB checks use (debian_chroot.sh), against sid's server, with the
# CPU backend (no nvcc in there), and checked in the same chroot.  17 and
# other majors come from source here and have no package: exit 77
# (skipped).  Needs root or sudo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/lib/prepare.sh
source test/lib/debian_chroot.sh
major=${1:?usage: run_package_checks.sh MAJOR}
case $major in
    15) suite=bookworm in_chroot=no ;;
    18) suite=sid in_chroot=yes ;;
    *)
        echo "package checks: PostgreSQL $major is no Debian package this machine can run: skipped"
        exit 77
        ;;
esac

if [ $in_chroot = no ]; then
    gh_step "build dependencies of the package"
    need=()
    for p in debhelper postgresql-server-dev-all cmake dpkg-dev fakeroot; do
        dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
    done
    [ ${#need[@]} = 0 ] || gh_apt_install "${need[@]}" || gh_die "could not install ${need[*]}"
else
    gh_chroot_ensure "$suite" $(gh_chroot_pg_packages "$major") build-essential debhelper postgresql-server-dev-all dpkg-dev fakeroot
fi

work=$(mktemp -d /var/tmp/gh-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
# the tracked and untracked files git does not ignore: the tree a clone has, with what is not committed yet
git ls-files -z --cached --others --exclude-standard | grep -zv '^\.gpu/' |
    tar --null -cf - -T - | tar -xf - -C "$work/src"

cuda=no
if [ $in_chroot = no ] && [ "${WITH_CUDA:-}" != no ] && [ -n "$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)" ]; then
    cuda=yes
fi
where=""
[ $in_chroot = no ] || where=", in the $suite chroot"
gh_step "dpkg-buildpackage -us -uc -b (CUDA backend: $cuda$where)"
started=$SECONDS
if [ $in_chroot = no ]; then
    (cd "$work/src" && DEB_BUILD_OPTIONS=nocheck \
        GH_CUDA_ARCHITECTURES="${GH_PACKAGE_CUDA_ARCHITECTURES:-90-real}" \
        dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1)
else
    # the control file for the suite's majors first (debian/control lists Debian 12's)
    chmod -R a+rwX "$work"
    # shellcheck disable=SC2016  # expanded by sh inside the chroot
    GH_CHROOT_BIND=$work gh_chroot_run "$suite" sh -c \
        'cd src && pg_buildext updatecontrol && WITH_CUDA=no DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b' \
        >"$work/build.log" 2>&1
fi || {
    tail -n 40 "$work/build.log"
    gh_die "dpkg-buildpackage failed"
}
deb=$(ls "$work"/postgresql-"$major"-gpu-histogram_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || gh_die "no postgresql-$major-gpu-histogram package was built: $(ls "$work")"
echo "built $(basename "$deb") in $((SECONDS - started)) s ($(du -h "$deb" | cut -f1))"

gh_step "what the package holds"
failures=0
contents=$(dpkg-deb -c "$deb")
version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" gpu_histogram.control)
for f in "usr/lib/postgresql/$major/lib/gpu_histogram.so" "usr/share/postgresql/$major/extension/gpu_histogram.control" \
         $(cd extension/sql && ls gpu_histogram--*.sql | sed "s|^|usr/share/postgresql/$major/extension/|"); do
    if grep -q " \./$f\$" <<<"$contents"; then echo "PASS: holds $f"; else echo "FAIL: no $f"; failures=$((failures + 1)); fi
done
if [ $cuda = yes ]; then
    mkdir -p "$work/unpacked" && dpkg-deb -x "$deb" "$work/unpacked"
    if grep -q "has no code in this build" "$work/unpacked/usr/lib/postgresql/$major/lib/gpu_histogram.so"; then
        echo "PASS: nvcc is here, and the library carries the CUDA backend"
    else
        echo "FAIL: nvcc is here, but the library has no CUDA backend"; failures=$((failures + 1))
    fi
fi
depends=$(dpkg-deb -f "$deb" Depends)
if grep -q "postgresql-$major" <<<"$depends"; then
    echo "PASS: depends on postgresql-$major ($depends)"
else
    echo "FAIL: no dependency on postgresql-$major: $depends"; failures=$((failures + 1))
fi
debversion=$(dpkg-deb -f "$deb" Version)
if [ "${debversion%%-*}" = "$version" ]; then
    echo "PASS: package version $debversion is the control file's $version"
else
    echo "FAIL: package version $debversion, control file $version"; failures=$((failures + 1))
fi

[ $in_chroot = yes ] || gh_chroot_ensure "$suite" "postgresql-$major" "postgresql-server-dev-$major" make
gh_step "installcheck of the installed package in the $suite chroot"
mkdir -p "$work/check/deb"
cp "$deb" "$work/check/deb/"
# what make installcheck reads: the Makefile, the control file, the tests, the Debian folder
cp -a Makefile gpu_histogram.control sql expected debian "$work/check/"
# The whole suite ran against this major's source build minutes ago; what
# only the package can get wrong is what it installs and how it loads: its
# SQL scripts and their upgrades, the preloaded library and its service,
# the aggregates, errors, types, the scan and its page path.  These tests
# reach each of those in about 30 s, where the whole suite takes 7 minutes
# more (GH_PACKAGE_REGRESS=all runs it).
package_tests=${GH_PACKAGE_REGRESS:-upgrade basic errors types nulls_empty merge device scan_forms wide_rows where_text value_aggs quantiles matrix}
[ "$package_tests" = all ] || sed -i "s/^REGRESS = .*/REGRESS = $package_tests/" "$work/check/Makefile"
chmod -R a+rwX "$work/check"
# shellcheck disable=SC2016  # expanded by sh inside the chroot
if GH_CHROOT_BIND=$work/check gh_chroot_run "$suite" sh -c '
        dpkg -i deb/*.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }
        pg_buildext -o shared_preload_libraries=gpu_histogram installcheck; s=$?
        dpkg --purge "postgresql-$1-gpu-histogram" >/dev/null 2>&1 || s=1
        exit $s' sh "$major" 2>&1 | tee "$work/installcheck.log"; then
    echo "PASS: pg_buildext installcheck against the installed package: $(grep -E 'tests passed' "$work/installcheck.log" | tail -n 1 | sed 's/^ *//')"
else
    echo "FAIL: pg_buildext installcheck against the installed package"; failures=$((failures + 1))
fi
[ $failures -eq 0 ] && echo "package checks: all passed" || echo "package checks: $failures FAILED"
[ $failures -eq 0 ]

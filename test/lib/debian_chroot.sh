#!/usr/bin/env bash
# debian_chroot.sh: a Debian chroot of another suite (sid) in which that
# suite's own binary packages run, for what Debian 12 cannot install.
#
#   source test/lib/prepare.sh        # gh_step, gh_die, gh_apt_install, gh_as_root
#   source test/lib/debian_chroot.sh
#   gh_chroot_ensure sid $(gh_chroot_pg_packages 18)
#   GH_CHROOT_BIND=$PWD gh_chroot_run sid \
#       make PG_CONFIG=/usr/lib/postgresql/18/bin/pg_config WITH_CUDA=no
#
# Why: the tests need PostgreSQL 18 with TimescaleDB. postgres_source.sh builds
# 18 from source, but TimescaleDB for 18 (2.31.0, sid's) cannot be built that
# way: sid's index names its source, and the archive's pool no longer holds
# the files. Sid's binary packages (postgresql-18 18.6, and
# postgresql-18-timescaledb 2.31.0) are in the pool, but they need glibc 2.38
# or newer and Debian 12 has 2.36, so they cannot be installed on the host.
# In a chroot of sid they run on sid's own glibc: mmdebstrap builds one from
# deb.debian.org in well under a minute, and the extension is compiled and
# tested in there against sid's server with sid's compiler.
#
# gh_chroot_ensure SUITE PACKAGE...
#   Creates /var/lib/gpu_histogram/chroot-SUITE once (mmdebstrap, variant apt,
#   then the packages with apt-get inside). A stamp file in it records the
#   suite, the mirror and the packages installed; asking for packages it does
#   not list installs them into the existing chroot, a different mirror (or a
#   chroot left half made) builds it anew. Packages are never removed.
#   No PostgreSQL cluster is created by the packages and no service is started
#   (createcluster.d: create_main_cluster = false, and a policy-rc.d that
#   refuses every start), so no server outlives a command run inside.
#
# gh_chroot_run SUITE [COMMAND...]
#   Runs COMMAND (default: bash) inside the chroot as root, with /proc, /sys,
#   /dev, /dev/pts and a fresh /dev/shm (PostgreSQL's dynamic shared memory)
#   mounted, and the host directory GH_CHROOT_BIND, if set, bind-mounted at
#   /src (the working directory then; else /). The mounts are made in a mount
#   namespace of the command's own (unshare), so the host never sees them and
#   they vanish with the command even if it is killed; an EXIT trap unmounts
#   them as well (and is all there is where unshare is refused). The command
#   gets a clean environment: PATH, HOME=/root, LANG=C.UTF-8, TERM. Pass more
#   with env: gh_chroot_run sid env WITH_CUDA=no make ...
#   Its exit status is the command's.
#
# Neither touches the host's apt sources: mmdebstrap takes the mirror on its
# command line and keeps sid's apt configuration inside the chroot. Sid's
# Release file has expired in the archive, so validity dates are not checked
# (Acquire::Check-Valid-Until "false", kept in the chroot's apt.conf.d for
# later installs). Both functions need root: as another user they go through
# sudo (gh_as_root). Logs: /var/lib/gpu_histogram/logs/chroot-SUITE-*.log,
# their tails printed when a step fails.

GH_CHROOT_BASE=${GH_CHROOT_BASE:-/var/lib/gpu_histogram}
GH_CHROOT_MIRROR=${GH_CHROOT_MIRROR:-http://deb.debian.org/debian}
GH_CHROOT_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

gh_chroot_dir() { echo "$GH_CHROOT_BASE/chroot-$1"; }

# The apt sources of a suite's chroot, one a line: a stable suite also gets
# its updates and security suites, where its point releases and security
# fixes are (Debian 12's PostgreSQL 15 among them), as a Debian 12 host has.
gh_chroot_sources() { # suite
    echo "deb $GH_CHROOT_MIRROR $1 main"
    case $1 in
        sid | unstable | experimental) ;;
        *)
            echo "deb $GH_CHROOT_MIRROR $1-updates main"
            echo "deb ${GH_CHROOT_MIRROR%/debian}/debian-security $1-security main"
            ;;
    esac
}

# What a chroot needs to build gpu_histogram (PGXS and the engine's CMake) for
# a PostgreSQL major and to run it with TimescaleDB preloaded.
gh_chroot_pg_packages() { # major
    echo "postgresql-$1 postgresql-server-dev-$1 postgresql-$1-timescaledb" \
         "g++ make cmake libc6-dev"
}

# The packages a chroot's stamp lists, one a line.
gh_chroot_stamped_packages() { # dir
    sed -n 's/^package //p' "$1/.gh-chroot" 2>/dev/null
}

# Removes a chroot directory, refusing while anything is mounted below it
# (a bind-mounted source tree would be deleted with it).
gh_chroot_remove() { # dir
    local dir=$1
    [ -e "$dir" ] || return 0
    if awk -v d="$dir/" 'index($5 "/", d) == 1 {found = 1} END {exit !found}' /proc/self/mountinfo; then
        gh_die "something is mounted below $dir; unmount it before the chroot can be rebuilt"
    fi
    rm -rf --one-file-system "$dir"
}

# Prints a log's tail, indented, for a step that failed.
gh_chroot_log_tail() { # log [lines]
    echo "last lines of $1:" >&2
    tail -n "${2:-30}" "$1" | sed 's/^/  /' >&2
}

gh_chroot_ensure() { # suite package...
    local suite=${1:-}
    [ -n "$suite" ] || gh_die "gh_chroot_ensure: which suite?"
    shift
    if [ "$(id -u)" != 0 ]; then
        # once as root, rather than sudo for every step
        # shellcheck disable=SC2016  # expanded by the bash that runs it
        gh_as_root env GH_CHROOT_BASE="$GH_CHROOT_BASE" GH_CHROOT_MIRROR="$GH_CHROOT_MIRROR" \
            bash -c 'source "$1/prepare.sh" && source "$1/debian_chroot.sh" && gh_chroot_ensure "${@:2}"' \
            gh-chroot "$GH_CHROOT_LIB" "$suite" "$@"
        return
    fi
    local dir logs lock want missing started log tmp
    dir=$(gh_chroot_dir "$suite")
    logs=$GH_CHROOT_BASE/logs
    mkdir -p "$logs"
    exec {lock}>"$GH_CHROOT_BASE/chroot-$suite.lock"
    flock "$lock"
    want=$(printf '%s\n' "$@" | sort -u | sed '/^$/d')

    # A chroot of this suite from this mirror, completely made? Else anew.
    local sources
    sources=$(gh_chroot_sources "$suite" | paste -sd '|')
    if ! { [ -x "$dir/usr/bin/apt-get" ] &&
           grep -qxF "suite $suite" "$dir/.gh-chroot" 2>/dev/null &&
           grep -qxF "mirror $GH_CHROOT_MIRROR" "$dir/.gh-chroot" &&
           grep -qxF "sources $sources" "$dir/.gh-chroot"; }; then
        command -v mmdebstrap >/dev/null 2>&1 || gh_apt_install mmdebstrap >"$logs/mmdebstrap-install.log" 2>&1 ||
            { gh_chroot_log_tail "$logs/mmdebstrap-install.log"; gh_die "could not install mmdebstrap"; }
        gh_step "Debian $suite chroot in $dir"
        started=$SECONDS
        log=$logs/chroot-$suite-create.log
        gh_chroot_remove "$dir"
        tmp=$dir.new
        gh_chroot_remove "$tmp"
        # variant apt: the Essential packages and apt; the rest is installed
        # below, by the same path that adds packages to an existing chroot.
        local lines=()
        mapfile -t lines < <(gh_chroot_sources "$suite")
        if ! mmdebstrap --variant=apt --mode=root --format=directory \
                --aptopt='Acquire::Check-Valid-Until "false"' \
                "$suite" "$tmp" "${lines[@]}" >"$log" 2>&1; then
            gh_chroot_log_tail "$log"
            gh_chroot_remove "$tmp"
            gh_die "mmdebstrap of $suite failed (log: $log)"
        fi
        # No service starts inside (invoke-rc.d asks policy-rc.d), and the
        # postgresql-NN packages create no main cluster.
        printf '#!/bin/sh\n# gpu_histogram: no service starts in this chroot\nexit 101\n' \
            >"$tmp/usr/sbin/policy-rc.d"
        chmod 755 "$tmp/usr/sbin/policy-rc.d"
        mkdir -p "$tmp/etc/postgresql-common/createcluster.d" "$tmp/src"
        echo 'create_main_cluster = false' >"$tmp/etc/postgresql-common/createcluster.d/00-gpu_histogram.conf"
        printf 'suite %s\nmirror %s\nsources %s\n' "$suite" "$GH_CHROOT_MIRROR" "$sources" >"$tmp/.gh-chroot"
        mv "$tmp" "$dir"
        echo "created $dir in $((SECONDS - started)) s ($(du -sh --one-file-system "$dir" | cut -f1))"
    fi

    # (apt's lists are removed after each install, ~200 MB; the next one
    # updates them first)
    missing=$(comm -23 <(echo "$want") <(gh_chroot_stamped_packages "$dir" | sort -u) | sed '/^$/d')
    if [ -n "$missing" ]; then
        gh_step "installing into the $suite chroot: ${missing//$'\n'/ }"
        started=$SECONDS
        log=$logs/chroot-$suite-packages.log
        # the host's resolver, for apt inside
        cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
        # shellcheck disable=SC2086,SC2016  # one word per package; expanded by sh inside
        if ! GH_CHROOT_BIND='' gh_chroot_run "$suite" sh -c \
                'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; s=$?; apt-get clean; rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin; exit $s' \
                sh $missing >"$log" 2>&1; then
            gh_chroot_log_tail "$log" 40
            gh_die "installing ${missing//$'\n'/ } into the $suite chroot failed (log: $log)"
        fi
        # shellcheck disable=SC2086  # one line per package
        printf 'package %s\n' $missing >>"$dir/.gh-chroot"
        echo "installed in $((SECONDS - started)) s; $dir is $(du -sh --one-file-system "$dir" | cut -f1)"
    fi
    exec {lock}>&-
}

# The script that gh_chroot_run runs as root: mounts, chroot, unmounts.
# Arguments: root, host directory for /src (or empty), working directory
# inside, then the command.
# shellcheck disable=SC2016  # expanded by the bash that runs it
GH_CHROOT_RUN_SCRIPT='
root=$1 bind=$2 wd=$3
shift 3
mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null ||
            echo "gh_chroot_run: could not unmount ${mounted[i]}" >&2
    done
    mounted=()
}
trap unmount_all EXIT
# A signal to this script goes on to the command (bash runs a trap only
# once its foreground child ends, hence the command in the background).
child=
on_signal() {
    [ -z "$child" ] || { kill -"$1" "$child" 2>/dev/null; wait "$child"; }
    exit "$2"
}
trap "on_signal HUP 129" HUP
trap "on_signal INT 130" INT
trap "on_signal TERM 143" TERM
# mount_at PATH-INSIDE mount-arguments...: private, so that nothing mounted
# below it reaches the host through a shared peer group.
mount_at() {
    local target=$root$1
    shift
    mount "$@" "$target" || { echo "gh_chroot_run: mount $* $target failed" >&2; exit 1; }
    mounted+=("$target")
    mount --make-private "$target" 2>/dev/null || true
}
mount_at /proc -t proc -o nosuid,nodev,noexec proc
mount_at /sys --bind /sys
mount_at /dev --bind /dev
mount_at /dev/pts --bind /dev/pts
mount_at /dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs
if [ -n "$bind" ]; then
    mkdir -p "$root/src"
    mount_at /src --bind "$bind"
fi
# stdin given explicitly: a background command would get /dev/null
env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    chroot "$root" /bin/sh -c '\''cd "$1" && shift && exec "$@"'\'' gh-chroot "$wd" "$@" <&0 &
child=$!
wait "$child"
status=$?
child=
exit "$status"
'

gh_chroot_run() { # suite [command...]
    local suite=${1:-} dir bind=${GH_CHROOT_BIND:-} wd=/
    [ -n "$suite" ] || gh_die "gh_chroot_run: which suite?"
    shift
    dir=$(gh_chroot_dir "$suite")
    [ -f "$dir/.gh-chroot" ] || gh_die "no $suite chroot at $dir (gh_chroot_ensure $suite ... makes it)"
    [ $# -gt 0 ] || set -- bash
    if [ -n "$bind" ]; then
        [ -d "$bind" ] || gh_die "GH_CHROOT_BIND=$bind is not a directory"
        bind=$(cd "$bind" && pwd -P)
        wd=/src
    fi
    # A mount namespace of its own where unshare works (not in every container).
    local ns=()
    if unshare --mount --propagation private true 2>/dev/null ||
       { [ "$(id -u)" != 0 ] && gh_as_root unshare --mount --propagation private true 2>/dev/null; }; then
        ns=(unshare --mount --propagation private --)
    fi
    gh_as_root env TERM="${TERM:-dumb}" "${ns[@]}" bash -c "$GH_CHROOT_RUN_SCRIPT" gh-chroot-run \
        "$dir" "$bind" "$wd" "$@"
}

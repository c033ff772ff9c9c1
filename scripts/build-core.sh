#!/bin/sh
# Build the Rust core (the extension reorderlab._core) with profile-guided
# optimisation (BENCHMARKS.md, "Profile-guided build"):
#
#   1. build it instrumented (-Cprofile-generate) into target/pgo/build,
#   2. run the reference benchmarks with it (scripts/pgo_train.py),
#   3. merge the counts (llvm-profdata, the one of rustc's own LLVM),
#   4. build it again with them (-Cprofile-use) where maturin always builds.
#
# The profile changes only how the compiler lays out and inlines the code,
# never what it computes: the results are the same bit for bit (the
# fingerprints of a full reproduction are compared in BENCHMARKS.md).
#
#   build-core.sh deps PYTHON   first install: the Python dependencies and
#                               the instrumented core (one build, not two)
#   build-core.sh core PYTHON   (re)build the core: steps 1-4
#
# PGO=0 builds plainly (quicker while editing the core). llvm-profdata must
# be of rustc's LLVM: the rustup component llvm-tools (added when missing),
# else llvm-profdata-MAJOR (Debian's llvm-MAJOR, installed from apt when
# root); without either it says so and builds plainly.
set -eu

step=$1
python=$2
venv_bin=$(dirname "$python")
root=$(pwd)
pgo_dir=$root/target/pgo
raw_dir=$pgo_dir/raw
profile=$pgo_dir/core.profdata

say() { echo "build-core: $*" >&2; }

# The instrumented build: one set of flags for both steps, so the second
# finds cargo's cache of the first.
instrumented() {
    CARGO_TARGET_DIR=$pgo_dir/build \
    RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$raw_dir" \
    PATH="$venv_bin:$PATH" \
        "$python" -m pip install --quiet "$@"
}

# llvm-profdata must read the raw profiles of rustc's LLVM: the rustup
# component of the same toolchain, or llvm-profdata-MAJOR (Debian llvm-MAJOR).
find_profdata() {
    sysroot=$(rustc --print sysroot)
    host=$(rustc -vV | sed -n 's/^host: //p')
    tool=$sysroot/lib/rustlib/$host/bin/llvm-profdata
    if [ ! -x "$tool" ] && command -v rustup >/dev/null 2>&1; then
        say "adding the rustup component llvm-tools (for llvm-profdata)"
        rustup component add llvm-tools >/dev/null 2>&1 || true
    fi
    if [ -x "$tool" ]; then
        echo "$tool"
        return 0
    fi
    major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
    if ! command -v "llvm-profdata-$major" >/dev/null 2>&1 \
        && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing llvm-$major from apt (for llvm-profdata-$major)"
        apt="apt-get -q -o DPkg::Lock::Timeout=600"
        export DEBIAN_FRONTEND=noninteractive
        $apt install -y --no-install-recommends "llvm-$major" >/dev/null 2>&1 \
            || { $apt update >/dev/null 2>&1 \
                && $apt install -y --no-install-recommends "llvm-$major" >/dev/null 2>&1; } \
            || true
    fi
    command -v "llvm-profdata-$major" 2>/dev/null
}

plain() {
    PATH="$venv_bin:$PATH" "$python" -m pip install --quiet "$@"
}

# Steps 1-3; fails (and says where) if any does.
make_profile() {
    rm -rf "$raw_dir" "$profile"
    instrumented --no-deps --no-build-isolation -e . || { say "the instrumented build failed"; return 1; }
    say "training: the reference benchmarks, instrumented"
    "$python" scripts/pgo_train.py || { say "the training run failed"; return 1; }
    "$profdata" merge --output="$profile" "$raw_dir" || { say "llvm-profdata merge failed"; return 1; }
}

# A profile-guided build that cannot be made falls back to a plain one:
# slower, never different, and `make run` still works.
fallback() {
    say "$1: building without a profile (same results, ~15 % more CPU)"
    plain --no-deps --no-build-isolation -e .
}

case "$step" in
deps)
    if [ "${PGO:-1}" = 1 ]; then
        instrumented -e ".[dev,dask]" || {
            say "the instrumented build failed: installing plainly (the next step retries)"
            plain -e ".[dev,dask]"
        }
    else
        plain -e ".[dev,dask]"
    fi
    ;;
core)
    if [ "${PGO:-1}" != 1 ]; then
        plain --no-deps --no-build-isolation -e .
        exit 0
    fi
    if ! profdata=$(find_profdata); then
        fallback "no llvm-profdata for rustc's LLVM"
        exit 0
    fi
    if ! make_profile; then
        fallback "could not make the profile"
        exit 0
    fi
    say "building with the profile"
    RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$profile" \
        plain --no-deps --no-build-isolation -e . \
        || fallback "the profile-guided build failed"
    ;;
*)
    echo "usage: build-core.sh deps|core PYTHON" >&2
    exit 2
    ;;
esac

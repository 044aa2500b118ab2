#!/usr/bin/env bash
# Build the Python extension into the virtual environment $1, in release mode for this machine's
# processor (-Ctarget-cpu=native: the extension is built where it runs), with profile-guided
# optimisation (PGO) when the toolchain allows it:
#   1. build the `calibrate` and `reproduce` examples instrumented (-Cprofile-generate);
#   2. run them: every calibration row and the quick reproduction of the seeds' findings are the
#      training set (the bench workloads are not in it, so `cellblade bench` measures code on
#      traffic the profile did not see);
#   3. merge the raw profiles with the llvm-profdata of rustc's own LLVM (rustup's llvm-tools);
#   4. build the extension with the profile (-Cprofile-use).
# Neither changes a result (Rust never contracts or reorders floating point; the outputs were
# compared byte for byte): PGO moves code and weighs branches by how often they ran, the native
# processor gives instructions such as tzcnt for the arbiter's bit scans. Together they give
# about 20% more simulated packets per second (README, "Speed"). Without llvm-profdata, or when
# a step fails, the extension is built without the profile and the reason printed;
# `cellblade bench` says which build it measured.
set -euo pipefail
venv=$(realpath "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# The MPI C library (libmpi/) goes into the package, so that an installed cellblade carries
# what `cellblade mpicc` compiles (python/cellblade/mpi/compiler.py).
rm -rf python/cellblade/mpi/libmpi
mkdir -p python/cellblade/mpi/libmpi
cp -R libmpi/include libmpi/src python/cellblade/mpi/libmpi/
pgo=target/pgo
native=-Ctarget-cpu=native
maturin=("$venv/bin/maturin" develop --release --extras test)

plain() {
    echo "build-extension: profile-guided optimisation skipped: $1; building without a profile" >&2
    VIRTUAL_ENV=$venv CELLBLADE_BUILD="release, native" CARGO_TARGET_DIR=target/native RUSTFLAGS=$native \
        "${maturin[@]}"
    exit 0
}

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [[ ! -x $profdata ]] && command -v rustup >/dev/null; then
    rustup component add llvm-tools >&2 || true
fi
[[ -x $profdata ]] || plain "no llvm-profdata for rustc's LLVM (rustup component llvm-tools)"

rm -rf "$pgo/raw"
mkdir -p "$pgo/raw"
echo "build-extension: building the instrumented training programs" >&2
RUSTFLAGS="$native -Cprofile-generate=$root/$pgo/raw" CARGO_TARGET_DIR=$pgo/train \
    cargo build --release -p cellblade --example calibrate --example reproduce >&2 \
    || plain "the instrumented build failed"
echo "build-extension: training run (calibrate, reproduce --quick)" >&2
"$pgo/train/release/examples/calibrate" >/dev/null || plain "the calibration training run failed"
"$pgo/train/release/examples/reproduce" quick >/dev/null || plain "the reproduction training run failed"
"$profdata" merge -o "$pgo/cellblade.profdata" "$pgo"/raw/*.profraw || plain "merging the profile failed"

# A target folder of its own: the flags differ from those of `cargo test`, which would
# otherwise rebuild everything each time it follows this build.
VIRTUAL_ENV=$venv CELLBLADE_BUILD="release, native, profile-guided" CARGO_TARGET_DIR=$pgo/use \
    RUSTFLAGS="$native -Cprofile-use=$root/$pgo/cellblade.profdata" "${maturin[@]}" \
    || plain "the build with the profile failed"

#!/usr/bin/env bash
# Build the Python extension into the virtual environment $1, in release mode for this machine's
# processor (-Ctarget-cpu=native: the extension is built where it runs; it gives instructions
# such as tzcnt for the arbiter's bit scans). It does not change a result: Rust never contracts
# or reorders floating point. The profile-guided build it replaced gained nothing measurable
# (interleaved: its own training set, `reproduce --quick`, no faster, the bench no faster) and
# cost every first build about a minute and a half (CHANGELOG.md, issue 24's twelfth part).
set -euo pipefail
venv=$(realpath "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# The MPI C library (libmpi/) goes into the package, so that an installed cellblade carries
# what `cellblade mpicc` compiles (python/cellblade/mpi/compiler.py).
rm -rf python/cellblade/mpi/libmpi
mkdir -p python/cellblade/mpi/libmpi
cp -R libmpi/include libmpi/src python/cellblade/mpi/libmpi/
# The Cell SDK's C sources (sdk/) likewise, for `cellblade spu-gcc` and the rest.
rm -rf python/cellblade/sdk/sdk
mkdir -p python/cellblade/sdk/sdk
cp -R sdk/. python/cellblade/sdk/sdk/
# A target folder of its own: its flags differ from those of `cargo test`, which would otherwise
# rebuild everything each time it follows this build.
VIRTUAL_ENV=$venv CELLBLADE_BUILD="release, native" CARGO_TARGET_DIR=target/native RUSTFLAGS=-Ctarget-cpu=native \
    "$venv/bin/maturin" develop --release --extras test

#!/usr/bin/env bash
# Builds every cargo-fuzz target and copies it, with a zipped seed corpus from corpus/<target>/,
# into $OUT. Runs inside ClusterFuzzLite (SRC, OUT and SANITIZER set by the image) and locally
# without Docker: `bash .clusterfuzzlite/build.sh` builds on stable with --sanitizer none into
# fuzz/out/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${SRC:+$SRC/kipcheck}"
root="${root:-$here}"
[ -d "$root/fuzz" ] || root="$here"
out="${OUT:-$root/fuzz/out}"
sanitizer="${SANITIZER:-none}"
mkdir -p "$out"
cd "$root"
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
if [ "$sanitizer" = none ]; then
  cargo fuzz build -O --fuzz-dir fuzz --sanitizer none
else
  # OSS-Fuzz images export RUSTFLAGS/CFLAGS for the sanitizer; cargo-fuzz takes it by name.
  cargo fuzz build -O --fuzz-dir fuzz --sanitizer "$sanitizer"
fi
bin_dir="$(find fuzz/target -type d -path '*/release' | head -n 1)"
for target in $(cargo fuzz list --fuzz-dir fuzz); do
  cp "$bin_dir/$target" "$out/"
  if [ -d "corpus/$target" ] && [ -n "$(ls -A "corpus/$target")" ]; then
    python3 - "$out/${target}_seed_corpus.zip" "corpus/$target" <<'PY'
import os, sys, zipfile
zip_path, folder = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(zip_path, "w") as z:
    for name in sorted(os.listdir(folder)):
        z.write(os.path.join(folder, name), name)
PY
  fi
done
echo "built: $(cargo fuzz list --fuzz-dir fuzz | tr '\n' ' ')-> $out"

# Sourced by scripts/bench-serve.sh and scripts/serve-cpu.sh, from the repository root (they cd
# there first): the release kipcheck ($bin), a descriptor limit for many connections,
# background servers in $pids killed on exit, and wait_line FILE TEXT (wait up to 30 s for a
# server to print TEXT).
cargo build --release -q -p kipcheck --bin kipcheck
bin=target/release/kipcheck
ulimit -n 30000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
wait_line() { for _ in $(seq 1 300); do [ -s "$1" ] && grep -q "$2" "$1" && return; sleep 0.1; done; echo "no '$2' in $1" >&2; exit 1; }

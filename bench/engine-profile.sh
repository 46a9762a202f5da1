#!/usr/bin/env bash
# Where the engine's typed delegation cycle spends its time (issue 26 item 5): builds the cycles
# bench with line tables, runs N typed cycles after 10,000 retained (BATON_BENCH_PROFILE_TYPED)
# under `perf record --call-graph dwarf`, and puts each sample that fell inside a typed cycle into
# the first group its stack matches, in the order printed. Needs `perf` (Debian's linux-perf).
# Usage: bench/engine-profile.sh [cycles, default 200000]
set -euo pipefail
n=${1:-200000}
cd "$(dirname "$0")/.."
bin=$(CARGO_PROFILE_BENCH_DEBUG=line-tables-only cargo bench -p baton-core --bench cycles --no-run 2>&1 |
    sed -n 's/.*Executable .*(\(.*\)).*/\1/p')
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
BATON_BENCH_PROFILE_TYPED=$n perf record -q -F 1999 --call-graph dwarf,32768 -o "$dir/perf.data" "$bin"
perf script -i "$dir/perf.data" -F ip,sym --no-inline 2>/dev/null > "$dir/stacks.txt"
python3 - "$dir/stacks.txt" <<'EOF'
import collections, re, sys

# (group, test on the whole stack and on its innermost frame); the first that matches wins.
GROUPS = [
    ("the store's work: each record encoded to its JSON line (the bench's EncodeSink)",
     lambda st, top: "EncodeSink" in st or "write_json_line" in st),
    ("sealing a record that left the recent window: its JSON",
     lambda st, top: "Records<K,T>::touch" in st and ("serde" in top or "serialize" in top.lower() or "memmove" in top)),
    ("sealing: lz4", lambda st, top: "lz4_flex" in st),
    ("the recent window's bookkeeping (Records::touch: lookups, queue, dropping the value)",
     lambda st, top: "Records<K,T>::touch" in st),
    ("the stored form's deltas (tx::stored_form)", lambda st, top: "stored_form" in st),
    ("applying changes to the state (State::apply: records, due index, inbox index)",
     lambda st, top: "State::apply" in st),
    ("the allocator, elsewhere",
     lambda st, top: re.search(r"malloc|free|_int_|unlink_chunk|consolidate|realloc", top) is not None),
    ("the commands themselves: rules, record copies, ids, answers", lambda st, top: True),
]
counts, total = collections.Counter(), 0
for sample in open(sys.argv[1]).read().split("\n\n"):
    frames = [l.strip() for l in sample.strip().split("\n") if l.strip()]
    if not any("cycle_typed" in f for f in frames):
        continue
    total += 1
    stack, top = " | ".join(frames), re.sub(r"^\S+\s+", "", frames[0])
    counts[next(name for name, test in GROUPS if test(stack, top))] += 1
print(f"{total} samples inside typed cycles")
for name, _ in GROUPS:
    print(f"{100 * counts[name] / max(total, 1):5.1f} %  {name}")
EOF

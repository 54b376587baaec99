#!/bin/sh
# `iwspec fuzz --shard I/N` and `--merge`, against the built-in DUT with a mutant every run shows
# (reply-wrong-rev: the Reply's Rev is wrong), so every shard finds the same finding: three shards
# of one seed fuzz three different seeds (S*N + I - 1, said in the log and in each seed.txt),
# and the merge writes that finding once, seen by three shards. The corpus side of the merge (the
# union of arcs, each program once) is tests/test_netfuzz_kcov.c's business: without a kernel to
# read, a shard keeps no corpus. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
for i in 1 2 3; do
	expect 1 "shard $i/3 finds the mutant's fault" "$IWSPEC" fuzz --mutant reply-wrong-rev --seed 5 --shard $i/3 --runs 30 \
		--max-findings 1 --no-minimize --no-progress --out "$tmp/shard-$i"
	contains "^iwspec fuzz: shard $i/3: seed $((5 * 3 + i - 1))\$" "shard $i fuzzes seed 5*3 + $i - 1"
	grep -q "^seed: $((5 * 3 + i - 1))\$" "$tmp/shard-$i/finding-1/seed.txt" && ok ||
		bad "shard $i's seed.txt does not name seed $((5 * 3 + i - 1)), which replays it"
done
expect 0 "the three shards merge" "$IWSPEC" fuzz --merge "$tmp/shard-1" "$tmp/shard-2" "$tmp/shard-3" --out "$tmp/merged"
contains "3 finding directories, 1 distinct findings (1 seen by more than one shard)" "the finding is counted once"
[ "$(grep -vc '^#' "$tmp/merged/findings.tsv")" = 1 ] && ok || bad "findings.tsv has not exactly one finding"
grep -q "^network	frame	RFC5044-7.1.1-01	responder	3	$tmp/shard-1/finding-1\$" "$tmp/merged/findings.tsv" && ok ||
	bad "findings.tsv does not give the finding, its three shards and the first one's directory: $(grep -v '^#' "$tmp/merged/findings.tsv")"
expect 2 "a bad --shard is refused" "$IWSPEC" fuzz --shard 4/3 --runs 1
contains "shard I of N counted from 1" "the message says what I/N means"
expect 2 "--merge needs directories" "$IWSPEC" fuzz --merge
expect 2 "--merge of a file is refused" "$IWSPEC" fuzz --merge "$tmp/merged/findings.tsv" --out "$tmp/m2"
contains "is not a directory" "the message names what is wrong"
finish fuzz_shards

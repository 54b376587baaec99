#!/bin/sh
# Negative controls for the full-operation cases: each error-code case must fail against a
# built-in DUT that sends a different code or none, and the data-sink cases against one that
# keeps delivering after an error or ignores bounds (drivers/ref_faults.c mutants). The failing
# case must cite the requirement the mutant breaks. Then the interop mapping: real stacks' codes
# fail the strict cases, and pass, reported as mappings, once the DUT configuration maps them.
# $IWSPEC names the binary. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
CASES="$ROOT/cases"

# The cases that expect a Terminate code: an `expect terminate layer= ... ecode=` line, or a
# one-of whose alternatives all begin with a Terminate with a code (no close without one). A case
# that names only the layer asks whether a Terminate comes, not which code (the SHOULD cases of
# DDP-8.2-01 and MPA-7-09): a wrong code is not its failure.
ERROR_CASES=$( (grep -l '^expect terminate layer=.*ecode=' -r "$CASES"
	grep -l '^  - terminate layer=.*ecode=' -r "$CASES" | xargs grep -L '^  - close\|^  - silence') |
	sort -u | xargs grep -h '^id:' | sed 's/^id: *//' | sort)
[ -n "$ERROR_CASES" ] && ok || bad "no error-code cases found under $CASES"

# run NAME CONFIG-LINES... : the full-operation cases against the built-in DUT, in the background
run() {
	name=$1; shift
	printf '%s\n' "$@" >"$tmp/$name.conf"
	( "$IWSPEC" run --profile rfc5044 --no-progress --case-dir "$CASES" --cases "$CASES/ddp" \
		--dut-config "$tmp/$name.conf" --report "$tmp/$name.ddp" >"$tmp/$name.out" 2>&1
	  "$IWSPEC" run --profile rfc5044 --no-progress --case-dir "$CASES" --cases "$CASES/rdmap" \
		--dut-config "$tmp/$name.conf" --report "$tmp/$name.rdmap" >>"$tmp/$name.out" 2>&1
	  "$IWSPEC" run --profile rfc5044 --no-progress --case-dir "$CASES" --cases 'mpa.crc.*' \
		--dut-config "$tmp/$name.conf" --report "$tmp/$name.crc" >>"$tmp/$name.out" 2>&1 ) &
}
run wrong "mutant = term-wrong-code"
run none "mutant = no-terminate"
run deliver "mutant = deliver-after-error"
run bounds "mutant = ignore-bounds"
run interop "mutant = interop-codes"
run mapped "$(grep -v '^#' "$ROOT/tests/conformance/interop-mapped.conf")"
wait

# failed_with OUT CASE REQ: the case failed and its summary line cites REQ
failed_with() {
	if grep -q "^  FAIL  $2  \[$3[]:]" "$tmp/$1.out"; then ok; else
		bad "$1: case $2 should FAIL citing $3"; grep "  $2 " "$tmp/$1.out" | head -3 >&2; fi
}
# cites CASE REQ: the case file lists REQ among its requirements
case_file() { grep -l "^id: $1\$" -r "$CASES" | head -1; }
failed_citing_own() {
	# A SHOULD case that is not met is a WARN: that is its failure.
	line=$(grep "^  \(FAIL\|WARN\)  $2  \[" "$tmp/$1.out" | head -1)
	req=$(echo "$line" | sed 's/[^[]*\[\([^]:]*\).*/\1/')    # [ID] or [ID: KW, where it stands]
	if [ -n "$line" ] && grep -q "^requirement: $req " "$(case_file "$2")"; then ok; else
		bad "$1: case $2 should FAIL citing one of its requirements (got '${line:-no FAIL}')"; fi
}

for c in $ERROR_CASES; do
	# The runs above are under rfc5044: a case for other profiles only (RFC 6581's IRD) is
	# judged by the detection matrix, which runs every profile.
	if grep -q '^profiles:' "$(case_file "$c")" && ! grep -q '^profiles:.*rfc5044' "$(case_file "$c")"; then
		continue
	fi
	layer=$(grep -h '^expect terminate layer=\|^  - terminate layer=' "$(case_file "$c")" | head -1 |
		sed 's/.*layer=\([a-z]*\).*/\1/')
	grep -q '^  - terminate layer=' "$(case_file "$c")" && layer=one-of
	# A wrong code: DDP codes are judged against DDP-9.2-01 (the §9.2 numbers).
	if [ "$layer" = ddp ]; then failed_with wrong "$c" DDP-9.2-01; else failed_citing_own wrong "$c"; fi
	# No Terminate at all.
	failed_citing_own none "$c"
done
# The reason names the code the DUT sent, not the one expected twice.
grep -A1 '^  FAIL  ddp.tagged.to-wrap ' "$tmp/wrong.out" | grep -q 'expected Terminate DDP/0x1/0x03 (TO wrap), seen DDP/0x1/0x23' &&
	ok || bad "wrong: the to-wrap reason does not show the code seen (0x23)"
# The CRC cases accept a close without a Terminate (MPA-7-02 is a SHOULD) but never a wrong code.
for c in mpa.crc.corrupt-payload mpa.crc.corrupt-crc-value mpa.crc.wrong-byte-order; do
	failed_citing_own wrong "$c"
	if grep -q "^  FAIL  $c " "$tmp/none.out"; then bad "none: $c should pass without a Terminate"; else ok; fi
done
grep -q "^  WARN  mpa.crc.terminate-code-2  \[MPA-7-02[]:]" "$tmp/none.out" && ok || bad "none: terminate-code-2 should WARN"
# Delivering after a CRC error breaks MPA-7-08, which every CRC error case cites.
for c in mpa.crc.corrupt-payload mpa.crc.corrupt-crc-value mpa.crc.wrong-byte-order mpa.crc.corrupt-ddp-header; do
	failed_citing_own deliver "$c"
	grep -q '^requirement: MPA-7-08 ' "$(case_file "$c")" && ok || bad "$c does not cite MPA-7-08"
done
# Ignoring bounds: the Writes past the buffer end are placed or dropped without an error.
failed_with bounds ddp.tagged.bounds-past-end-by-one DDP-9.1-T4
failed_with bounds ddp.tagged.to-past-end DDP-9.1-T3
# Real stacks' codes: the strict cases fail without a mapping ...
failed_with interop ddp.tagged.to-wrap DDP-9.2-01
failed_with interop ddp.untagged.mo-plus-length-past-buffer DDP-9.2-01
failed_with interop ddp.untagged.message-longer-than-buffer DDP-9.2-01
failed_citing_own interop mpa.crc.corrupt-payload
# ... and pass with one, each mapping applied shown on the console and in results.json.
if grep -q '^  \(FAIL\|ERROR\|WARN\)  [a-z]' "$tmp/mapped.out"; then bad "mapped: a case did not pass"
	grep -A1 '^  \(FAIL\|ERROR\|WARN\)  [a-z]' "$tmp/mapped.out" | head >&2; else ok; fi
grep -q 'Error-code mappings applied' "$tmp/mapped.out" && ok || bad "mapped: no mapping section on the console"
grep -q '^  ddp.tagged.to-wrap (rfc5044): 1/1/0x01 accepted for 1/1/0x03: siw' "$tmp/mapped.out" && ok ||
	bad "mapped: the to-wrap mapping is not listed per case"
grep -q 'accepted for 1/2/0x05' "$tmp/mapped.ddp/results.json" && ok || bad "mapped: results.json lacks the mapping"
grep -q 'accepted for 2/0/0x02' "$tmp/mapped.crc/results.json" && ok || bad "mapped: results.json lacks the LLP mapping"

# ---- iwspec mutants: the detection matrix's own judgement, on one-case catalogs ----------
"$IWSPEC" mutants --list >"$tmp/list" 2>&1 && ok || bad "mutants --list failed"
[ "$(wc -l <"$tmp/list")" -ge 40 ] && ok || bad "mutants --list shows fewer than 40 mutants"
for fam in startup framing markers ddp rdmap errors robustness; do
	grep -q "^[a-z0-9-]* *$fam " "$tmp/list" && ok || bad "mutants --list: no mutant of family $fam"
done
"$IWSPEC" mutants --family nope >"$tmp/out" 2>&1; [ $? -eq 2 ] && grep -q "unknown family 'nope'" "$tmp/out" && ok ||
	bad "mutants --family nope: wanted exit 2 naming the family"
"$IWSPEC" mutants --mutant nope >"$tmp/out" 2>&1; [ $? -eq 2 ] && grep -q "unknown mutant 'nope'" "$tmp/out" && ok ||
	bad "mutants --mutant nope: wanted exit 2 naming the mutant"
# matrix NAME MUTANT REQUIREMENT: `iwspec mutants` on a catalog of one case (a Request gets a
# Reply with R=0, which the frame checks judge field by field) that cites REQUIREMENT; prints
# the exit status
matrix() {
	mkdir -p "$tmp/m-$1/cases"
	printf 'id: t.one\ntitle: a Request gets a Reply\nrequirement: %s MUST\nrole: responder\n\nconnect\nsend request\nexpect reply r=0\n' \
		"$3" >"$tmp/m-$1/cases/one.iwt"
	"$IWSPEC" mutants --mutant "$2" --profile rfc5044 --case-dir "$tmp/m-$1/cases" --report "$tmp/m-$1/out" \
		>"$tmp/m-$1/log" 2>&1
	echo $?
}
# The case cites the requirement the mutant breaks: detected, exit 0.
st=$(matrix cites reply-wrong-rev MPA-6.1.1-06)
[ "$st" = 0 ] && grep -q '^startup *reply-wrong-rev *MPA-6.1.1-06 *detected' "$tmp/m-cites/out/mutants.txt" && ok ||
	bad "a case citing the broken requirement: wanted detected and exit 0 (exit $st)"
# It fails, but cites another requirement: WRONG-REQ, exit 1.
st=$(matrix other reply-wrong-rev MPA-6.1-R2a)
[ "$st" = 1 ] && grep -q '^startup *reply-wrong-rev *MPA-6.1.1-06 *WRONG-REQ' "$tmp/m-other/out/mutants.txt" && ok ||
	bad "a case citing another requirement: wanted WRONG-REQ and exit 1 (exit $st)"
# Nothing fails against the mutant (no case sends a bad CRC): SURVIVED, exit 1.
st=$(matrix none crc-unchecked MPA-6.1-R2a)
[ "$st" = 1 ] && grep -q '^framing *crc-unchecked *MPA-5.2-14 *SURVIVED' "$tmp/m-none/out/mutants.txt" && ok ||
	bad "a catalog that misses the fault: wanted SURVIVED and exit 1 (exit $st)"
# --expect: the matrix against one kept from before (make test's determinism check). The same
# catalog again matches its own matrix; a matrix made with another case differs, and the output
# names the first differing line and the command that keeps the new one.
expect() {
	"$IWSPEC" mutants --mutant reply-wrong-rev --profile rfc5044 --case-dir "$tmp/m-cites/cases" \
		--report "$tmp/m-expect" --expect "$1" >"$tmp/m-expect.log" 2>&1
	echo $?
}
st=$(expect "$tmp/m-cites/out/mutants.txt")
[ "$st" = 0 ] && grep -q "the matrix is identical to $tmp/m-cites/out/mutants.txt" "$tmp/m-expect.log" && ok ||
	bad "mutants --expect its own matrix: wanted exit 0 and 'identical' (exit $st)"
st=$(expect "$tmp/m-other/out/mutants.txt")
[ "$st" = 1 ] && grep -q "the matrix differs from $tmp/m-other/out/mutants.txt, first at line" "$tmp/m-expect.log" &&
	grep -q "cp $tmp/m-expect/mutants.txt $tmp/m-other/out/mutants.txt" "$tmp/m-expect.log" && ok ||
	bad "mutants --expect another matrix: wanted exit 1, the first differing line and the cp (exit $st)"
"$IWSPEC" mutants --expect "$tmp/nope.txt" >"$tmp/out" 2>&1; [ $? -eq 2 ] && grep -q "no such readable file" "$tmp/out" &&
	ok || bad "mutants --expect a missing file: wanted exit 2 naming it"
json_has() { grep -q "$2" "$1" && ok || bad "$1 lacks $2"; }
json_has "$tmp/m-cites/out/mutants.json" '"result": "detected"'
json_has "$tmp/m-none/out/mutants.json" '"result": "SURVIVED"'

# The count README states is the binary's (issue 38: docs said 49, 64 and 66 where --list had 63).
n=$("$IWSPEC" mutants --list | grep -c '^[a-z]')
grep -q "make mutants      # the suite against $n mutant DUTs" "$ROOT/README.md" && ok ||
	bad "README.md's make mutants line does not say $n mutant DUTs, the number iwspec mutants --list has"

finish mutants

#!/bin/sh
# The verdicts of every results.json under DIR, one line per case and profile, sorted, with no
# times: "RUN ID PROFILE ROLE VERDICT FAILED_REQUIREMENT". Two trees compared with diff show
# whether a change altered any verdict (issue 13: the conformance and mutant matrices must come
# out identical across a refactoring).
#
#   sh tools/verdicts.sh DIR > before.txt; ...; sh tools/verdicts.sh DIR > after.txt; diff before.txt after.txt
set -eu
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: sh tools/verdicts.sh DIR (a folder holding results.json files)" >&2; exit 2; }
command -v jq >/dev/null || { echo "tools/verdicts.sh: jq is missing (apt-get install jq)" >&2; exit 2; }
find "$1" -name results.json | sort | while read -r f; do
	run=${f#"$1"/}
	run=${run%/results.json}
	jq -r --arg run "$run" '.cases[] | [$run, .id, .profile, (.dut_role // "-"), .verdict,
		(.failed_requirement // "-")] | join(" ")' "$f"
done | sort

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/man.sh CCLAB OUTDIR — man pages from the help text, with help2man:
# cclab(1) from `cclab --help`, and cclab-COMMAND(1) from `cclab COMMAND
# --help` for every command `cclab --help` lists.  Generated, never edited:
# the help text is the one source, so a page cannot fall behind an option.
set -euo pipefail
cclab=${1:?usage: scripts/man.sh CCLAB OUTDIR}
out=${2:?usage: scripts/man.sh CCLAB OUTDIR}
if ! command -v help2man >/dev/null; then
	echo "scripts/man.sh: help2man is missing (scripts/install-deps.sh installs it)" >&2
	exit 1
fi
version=$("$cclab" --version | awk '{print $2}')
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# help2man runs PROGRAM --help through the shell: a one-line wrapper per
# command keeps the path safe whatever characters it holds.
page() { # NAME DESCRIPTION ARGS...
	local name=$1 desc=$2 w="$tmp/$1"
	shift 2
	printf '#!/bin/sh\nexec %q %s "$@"\n' "$cclab" "$*" >"$w"
	chmod +x "$w"
	help2man --no-info --no-discard-stderr --version-string="$version" \
		--name="$desc" --section=1 --source="cclab $version" "$w" >"$tmp/page"
	# The title help2man derives is the wrapper's name upper-cased; say
	# which command in the SYNOPSIS as the user types it.
	sed -e "s/^\\.TH [^ ]* /.TH ${name^^} /" -e "s|$w|${name/-/ }|g" "$tmp/page" >"$out/$name.1"
}

page cclab "collective schedules on simulated and real RDMA fabrics"
# The Commands list: "  NAME [ARGS]  description", continued on deeper
# indented lines; once per name, parentheses left out of the NAME line.
"$cclab" --help | awk '
	function flush() { if (name != "") { gsub(/ *\([^)]*\)/, "", desc); print name "\t" desc } name = "" }
	/^Commands:/ { on = 1; next }
	on && /^$/ { flush(); exit }
	on && /^  [a-z0-9]/ { flush(); n = $1; if (seen[n]++ || n == "help") next
		name = n; desc = $0; sub(/^  [a-z0-9]+( [][A-Z.-]+| -n K)* +/, "", desc); next }
	on && /^     / && name != "" { line = $0; sub(/^ +/, "", line); desc = desc " " line }' |
while IFS=$'\t' read -r cmd desc; do
	page "cclab-$cmd" "$desc" "$cmd"
done
echo "man: $(ls "$out" | wc -l) pages in $out"

# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# scripts/softroce/pair.sh — sourced by the VM's plans (smoke.sh,
# verbs-tests.sh; run from the repository's root, run.sh's WORKDIR): a
# server and its client as two processes on the one rxe device, as
# perftest's tools and cclab's perftest mode run on two hosts.
#
# Server in the background, client once the server's TCP port listens (the
# tools exchange QP numbers and GIDs over TCP before any RDMA).  Each side
# has its own time limit; both logs are printed and kept in $OUT.
#   pair NAME PORT SECONDS SERVER_CMD... -- CLIENT_CMD...
# Returns 0 when both sides exit 0.
pair() {
	local name=$1 port=$2 limit=$3
	shift 3
	local srv=() cli=() spid src=0 crc=0 i
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	timeout "$limit" "${srv[@]}" >"$OUT/$name-server.log" 2>&1 &
	spid=$!
	for i in $(seq 100); do
		ss -Hltn "sport = :$port" | grep -q . && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	((i < 100)) || echo "pair: $name: server not listening on port $port after 10 s; trying anyway"
	timeout "$limit" "${cli[@]}" >"$OUT/$name-client.log" 2>&1 || crc=$?
	# The server ends after one client; a failed client may leave it waiting.
	((crc == 0)) || kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	echo "--- $name server: ${srv[*]} (exit $src)"
	cat "$OUT/$name-server.log"
	echo "--- $name client: ${cli[*]} (exit $crc)"
	cat "$OUT/$name-client.log"
	((src == 0 && crc == 0))
}

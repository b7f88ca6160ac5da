#!/bin/sh
# TEST AID: a user's wrapper that starts the server WITHOUT exec and cleans up after it when it ends
# (as a real wrapper removes the server's copied state): on exit it stops the server, waits for it,
# then logs "clean PID" and removes its marker. Each start logs "start PID" and creates the marker.
# Usage: sh wrapper.sh DIR COMMAND...   (markers and log.txt go to DIR)
dir=$1
shift
marker="$dir/marker-$$"
: > "$marker"
echo "start $$" >> "$dir/log.txt"
"$@" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server; echo "clean $$" >> "$dir/log.txt"; rm -f "$marker"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
wait $server

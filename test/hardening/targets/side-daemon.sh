#!/bin/sh
# TEST AID: a target that leaves a side daemon behind: a `sleep` in a session of its own (out of the
# harness's process group), then the server itself by exec.
# Usage: sh side-daemon.sh COMMAND...
setsid sh -c 'sleep 777' </dev/null >/dev/null 2>&1 &
exec "$@"

#!/bin/sh
# TEST AID: a daemonizing launcher. It starts the server in a session of its own (out of the harness's
# process group and, once this script exits, out of its process tree: ppid 1), still holding the
# harness's output pipes, and exits 0 at once.
# Usage: sh daemonize.sh COMMAND...
setsid "$@" </dev/null &
exit 0

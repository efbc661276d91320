#!/usr/bin/env bash
# Rebuilds assets/graphiql/ (roost's vendored GraphiQL) from package-lock.json:
# `npm ci` into tools/graphiql/node_modules (not committed), then esbuild
# (build.mjs). Run it after changing a version in package.json (`npm install` there
# first to update the lockfile) and commit assets/graphiql/ with the lockfile.
# `cargo build` never runs it: the built files are committed.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node build.mjs
ls -l ../../assets/graphiql

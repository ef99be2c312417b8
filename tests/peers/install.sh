#!/usr/bin/env bash
# Installs the interoperability peers (official A2A SDKs) used by the
# integration tests into $PEERS_DIR (default: <repo>/target/peers).
#
#   py10/  python venv, a2a-sdk 1.3.0  (protocol v1.0)  <- py10-requirements.txt
#   py03/  python venv, a2a-sdk 0.3.26 (protocol v0.3)  <- py03-requirements.txt
#   js/    npm project, @a2a-js/sdk 1.3.0 + express     <- js/package.json + js/package-lock.json
#   oidc/  npm project, oidc-provider 9.13.3 (a certified OpenID provider for the sign-in tests)
#                                                       <- oidc/package.json + oidc/package-lock.json
#
# Every version, transitive ones included, is pinned by those files.
# Idempotent: each peer keeps a marker holding a hash of its pin file (and
# the interpreter version); when it matches, the peer is not reinstalled.
#
# Usage: tests/peers/install.sh [--force]
# Env:   PEERS_DIR (install location), PYTHON (python >= 3.10, default python3)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PEERS_DIR="${PEERS_DIR:-$REPO/target/peers}"
PYTHON="${PYTHON:-python3}"
FORCE=0
case "${1:-}" in
  --force) FORCE=1 ;;
  "") ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

die() { echo "install.sh: ERROR: $*" >&2; exit 1; }

hash_of() { # files... -> one sha256 over their contents
  if command -v sha256sum >/dev/null 2>&1; then cat "$@" | sha256sum | cut -d' ' -f1
  else cat "$@" | shasum -a 256 | cut -d' ' -f1; fi
}

up_to_date() { # marker, wanted-content
  [[ $FORCE == 0 && -f "$1" && "$(cat "$1")" == "$2" ]]
}

install_py() { # name, requirements file
  local name="$1" req="$2"
  local dir="$PEERS_DIR/$name" marker="$PEERS_DIR/$name/.installed"
  [[ -f "$req" ]] || die "peer $name: missing $req"
  local pyver want
  pyver="$("$PYTHON" -c 'import sys; print(".".join(map(str, sys.version_info[:3])))')"
  want="$(hash_of "$req") python$pyver"
  local sdk; sdk="$(grep -o '^a2a-sdk[^=]*==[^; ]*' "$req" | sed 's/\[.*\]//')"
  if up_to_date "$marker" "$want" && [[ -x "$dir/bin/python" ]]; then
    echo "peer $name: up to date ($sdk) in $dir"
    return 0
  fi
  echo "peer $name: installing $sdk into $dir ..."
  rm -rf "$dir"
  "$PYTHON" -m venv "$dir" || die "peer $name: cannot create a venv at $dir (is python3-venv installed?)"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" \
    || die "peer $name: pip install -r $req failed"
  "$dir/bin/python" -c 'import a2a, uvicorn, starlette, sse_starlette, httpx' \
    || die "peer $name: import check failed"
  printf '%s\n' "$want" > "$marker"
  echo "peer $name: ok ($sdk, python $pyver)"
}

install_js() {
  local dir="$PEERS_DIR/js" marker="$PEERS_DIR/js/.installed"
  command -v node >/dev/null 2>&1 || die "peer js: node not found"
  command -v npm >/dev/null 2>&1 || die "peer js: npm not found"
  local nodever; nodever="$(node -p 'process.versions.node')"
  [[ "${nodever%%.*}" -ge 20 ]] || die "peer js: node $nodever is too old (@a2a-js/sdk needs >= 20)"
  local want; want="$(hash_of "$HERE/js/package.json" "$HERE/js/package-lock.json") node${nodever%%.*}"
  if up_to_date "$marker" "$want" && [[ -d "$dir/node_modules/@a2a-js/sdk" ]]; then
    cp "$HERE/js_deps.mjs" "$dir/deps.mjs"   # cheap; keeps it in sync with the repo
    echo "peer js: up to date (@a2a-js/sdk 1.3.0) in $dir"
    return 0
  fi
  echo "peer js: installing @a2a-js/sdk 1.3.0 + express into $dir ..."
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$HERE/js/package.json" "$HERE/js/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
    || die "peer js: npm ci failed"
  cp "$HERE/js_deps.mjs" "$dir/deps.mjs"
  (cd "$dir" && node --input-type=module -e 'await import("./deps.mjs")') \
    || die "peer js: module check failed"
  printf '%s\n' "$want" > "$marker"
  echo "peer js: ok (@a2a-js/sdk 1.3.0, express $(node -p "require('$dir/node_modules/express/package.json').version"), node $nodever)"
}

install_oidc() {
  local dir="$PEERS_DIR/oidc" marker="$PEERS_DIR/oidc/.installed"
  command -v node >/dev/null 2>&1 || die "peer oidc: node not found"
  command -v npm >/dev/null 2>&1 || die "peer oidc: npm not found"
  local nodever; nodever="$(node -p 'process.versions.node')"
  local want; want="$(hash_of "$HERE/oidc/package.json" "$HERE/oidc/package-lock.json") node${nodever%%.*}"
  if up_to_date "$marker" "$want" && [[ -d "$dir/node_modules/oidc-provider" ]]; then
    echo "peer oidc: up to date (oidc-provider 9.13.3) in $dir"
    return 0
  fi
  echo "peer oidc: installing oidc-provider 9.13.3 into $dir ..."
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$HERE/oidc/package.json" "$HERE/oidc/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
    || die "peer oidc: npm ci failed"
  (cd "$dir" && node --input-type=module -e 'await import("oidc-provider")') \
    || die "peer oidc: module check failed"
  printf '%s\n' "$want" > "$marker"
  echo "peer oidc: ok (oidc-provider $(node -p "require('$dir/node_modules/oidc-provider/package.json').version"), node $nodever)"
}

command -v "$PYTHON" >/dev/null 2>&1 || die "'$PYTHON' not found (set PYTHON=...)"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || die "$PYTHON is older than 3.10 (a2a-sdk needs >= 3.10)"
mkdir -p "$PEERS_DIR"

install_py py10 "$HERE/py10-requirements.txt"
install_py py03 "$HERE/py03-requirements.txt"
install_js
install_oidc
echo "peers ready in $PEERS_DIR"

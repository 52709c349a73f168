#!/usr/bin/env bash
# Installs what gpulint needs and the machine lacks: the Debian packages listed in
# deps/debian-packages.txt (apt-get, as root or through sudo) and the pinned tree-sitter
# C core + Python grammar from npm (package-lock.json, `npm ci --ignore-scripts`).
# Idempotent: does nothing when everything is present.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

missing=()
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  # nodejs/npm may come from the image rather than Debian: accept the commands.
  if [[ "$pkg" == nodejs ]] && command -v node >/dev/null 2>&1; then continue; fi
  if [[ "$pkg" == npm ]] && command -v npm >/dev/null 2>&1; then continue; fi
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done < deps/debian-packages.txt

if ((${#missing[@]})); then
  echo "ensure-deps: installing Debian packages: ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "ensure-deps: need root or sudo to install ${missing[*]}" >&2; exit 2; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm: reinstall when node_modules is missing or older than the lockfile.
stamp=node_modules/.gpulint-lock-stamp
if [[ ! -f "$stamp" ]] || ! cmp -s package-lock.json "$stamp"; then
  echo "ensure-deps: npm ci --ignore-scripts (tree-sitter 0.25.1, tree-sitter-python 0.25.0, @microsoft/sarif-multitool 5.7.0)"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi

# The SARIF Multitool (a devDependency, used by tests/e2e/sarif_validate.sh) ships a .NET
# executable whose package's only install script is `chmod u+x Sarif.Multitool`; with
# --ignore-scripts that step is done here instead.
multitool=node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [[ -f "$multitool" && ! -x "$multitool" ]]; then chmod u+x "$multitool"; fi

#!/bin/bash
# Checks that a change to the analysis left its output alone: runs
#   BIN check --output-format json --exit-zero DIR
# with two gpulint binaries on fixtures/python, fixtures/demo, every directory named in
# GPULINT_EVAL_DIRS (space-separated: the eval corpora, which live outside the repository —
# bench/eval/score.py's docstring says how to fetch them) and any extra paths given, and
# compares the JSON byte for byte. Exit 0 when every output is identical, 1 otherwise (the
# differing outputs are listed), 2 on bad usage.
#
#   GPULINT_EVAL_DIRS="/data/eval_corpus /data/eval_corpus2" bench/same_output.sh BASELINE_GPULINT NEW_GPULINT [EXTRA_PATH...]
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
  echo "usage: $0 BASELINE_GPULINT NEW_GPULINT [EXTRA_PATH...]" >&2
  exit 2
fi
base=$1 new=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
paths=()
for d in ${GPULINT_EVAL_DIRS:-}; do
  [ -d "$d" ] || { echo "GPULINT_EVAL_DIRS names $d, which is not a directory" >&2; exit 2; }
  paths+=("$d")
done
paths+=(fixtures/python fixtures/demo "$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for p in "${paths[@]}"; do
  name=$(echo "$p" | tr '/' '_')
  "$base" check --output-format json --exit-zero "$p" > "$out/$name.base.json" 2>/dev/null
  "$new" check --output-format json --exit-zero "$p" > "$out/$name.new.json" 2>/dev/null
  if cmp -s "$out/$name.base.json" "$out/$name.new.json"; then
    echo "same      $p ($(wc -c < "$out/$name.new.json") bytes)"
  else
    echo "DIFFERENT $p"
    status=1
  fi
done
exit $status

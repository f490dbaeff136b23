#!/usr/bin/env bash
# Lint the contract and check it for breaking changes against the last landed
# version. Needs `uv sync` (protoc, protovalidate) and `npm ci` in protos/ (buf).
#
# Both checks run on buf images built by protos/generate.py (see its docstring
# for why not on the sources). The baseline is, in order: $FELTLINE_PROTOS_BASE
# if set; else where this branch left main (the merge base with origin/main or
# main) when that is not HEAD itself; else HEAD's first parent, which on main
# is the version landed before this one.
set -euo pipefail
cd "$(dirname "$0")/.."

buf=protos/node_modules/.bin/buf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The vendored validate.proto is the locked protovalidate's, and buf builds
# the sources offline (buf.yaml names no registry).
uv run --no-sync python protos/vendor.py --check
(cd protos && "../$buf" build -o "$work/sources.binpb")
echo "vendored validate.proto: matches protovalidate; buf build: offline"
uv run --no-sync python protos/generate.py --image "$work/head.binpb"
"$buf" lint "$work/head.binpb" --config protos/buf.yaml --path feltline
echo "buf lint: clean"

base=${FELTLINE_PROTOS_BASE:-}
if [[ -z $base ]]; then
  head=$(git rev-parse HEAD)
  for ref in origin/main main; do
    if fork=$(git merge-base HEAD "$ref" 2>/dev/null) && [[ $fork != "$head" ]]; then
      base=$fork
      break
    fi
  done
  if [[ -z $base ]]; then
    base=$(git rev-parse --verify --quiet 'HEAD^1' || true)
  fi
fi
if [[ -z $base ]]; then
  echo "buf breaking: skipped, HEAD has no earlier commit to compare with"
  exit 0
fi
if [[ -z $(git ls-tree -r --name-only "$base" -- protos/feltline) ]]; then
  echo "buf breaking: skipped, $(git rev-parse --short "$base") has no protos yet (first version of the contract)"
  exit 0
fi
mkdir "$work/base"
git archive "$base" protos/feltline | tar -x -C "$work/base"
uv run --no-sync python protos/generate.py --image "$work/base.binpb" --source "$work/base/protos"
"$buf" breaking "$work/head.binpb" --against "$work/base.binpb" --config protos/buf.yaml \
  --against-config protos/buf.yaml --path feltline
echo "buf breaking: no breaking change since $(git rev-parse --short "$base")"

#!/usr/bin/env bash
# Lint the contract and check it for breaking changes against the last landed
# version. Needs `uv sync` (protoc, protovalidate) and `npm ci` in protos/ (buf).
#
# Both checks run on buf images built by protos/generate.py (see its docstring
# for why not on the sources). The baseline is, in order: $FELTLINE_PROTOS_BASE
# if set; else where this branch left main (the merge base with origin/main or
# main) when that is not HEAD itself; else HEAD's first parent, which on main
# is the version landed before this one. A shallow clone holding neither
# fetches them first; with none found, CI (CI=true) fails rather than skip.
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

# Where this branch left main, or HEAD's first parent (on main, the version
# landed before this one); empty when this clone does not hold either.
find_base() {
  local head fork ref
  head=$(git rev-parse HEAD)
  for ref in origin/main main; do
    if fork=$(git merge-base HEAD "$ref" 2>/dev/null) && [[ $fork != "$head" ]]; then
      echo "$fork"
      return
    fi
  done
  git rev-parse --verify --quiet 'HEAD^1' || true
}

base=${FELTLINE_PROTOS_BASE:-}
if [[ -z $base ]]; then
  base=$(find_base)
fi
if [[ -z $base && $(git rev-parse --is-shallow-repository) == true ]]; then
  # A shallow clone: fetch the last landed commit (HEAD's parent, and main).
  echo "buf breaking: shallow clone, fetching the last landed version"
  git fetch --quiet --deepen=1 origin 2>/dev/null || true
  git fetch --quiet origin main:refs/remotes/origin/main 2>/dev/null || true
  base=$(find_base)
fi
if [[ -z $base ]]; then
  case ${CI:-} in
    1 | true | TRUE | True | yes | on)
      echo "buf breaking: FAILED, no earlier commit to compare with (set FELTLINE_PROTOS_BASE)" >&2
      exit 1
      ;;
  esac
  echo "buf breaking: skipped, HEAD has no earlier commit to compare with (outside CI)"
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

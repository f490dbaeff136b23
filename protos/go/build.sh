#!/usr/bin/env bash
# A Go client from protos/ alone, as docs/api.md ("Generating a client", Go)
# says, with Debian's packages and nothing fetched: golang-go,
# protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc, and the Go sources of
# protobuf and gRPC (golang-google-protobuf-dev, golang-google-grpc-dev) in
# /usr/share/gocode, built in GOPATH mode. Generates the stubs and compiles
# them with protos/go/tables; with FELTLINE_TEST_SERVER set
# (tests/client/real_server.py --run), opens a table on that server and
# lists it with the Go client.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$work/src/feltline"
mkdir -p "$out/cmd"
# validate.proto's own go_package names a module nobody can fetch offline:
# its code is generated here too, into the same module.
validate=Mbuf/validate/validate.proto=feltline/buf/validate
protoc -I . -I vendor \
  --go_out="$out" --go_opt=module=feltline --go_opt="$validate" \
  --go-grpc_out="$out" --go-grpc_opt=module=feltline --go-grpc_opt="$validate" \
  feltline/v1/*.proto buf/validate/validate.proto
cp -r go/tables "$out/cmd/tables"
export GO111MODULE=off GOPATH="$work:/usr/share/gocode" GOCACHE="$work/cache" GOFLAGS=
(cd "$out" && go vet ./... && go build -o "$work/tables" ./cmd/tables)
echo "Go stubs: generated from protos/ and compiled ($(find "$out/v1" -name '*.go' | wc -l) files)"

if [[ -n ${FELTLINE_TEST_SERVER:-} ]]; then
  server() { python3 -c "import json, os; print(json.loads(os.environ['FELTLINE_TEST_SERVER'])['$1'])"; }
  target=$(server target)
  admin=$(server admin)
  uv run feltline table open --game holdem --name "go client" --target "$target" --token "$admin" >/dev/null
  listed=$("$work/tables" "$target" "$admin")
  echo "$listed"
  grep -q $'\tgo client\tGAME_HOLDEM\t6 seats$' <<<"$listed"
  echo "Go client: listed the server's tables"
fi

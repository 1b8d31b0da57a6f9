#!/usr/bin/env bash
# Builds the third-party tools krender's tests compare against, from the Go
# module proxy, into .cache/bin (git-ignored). Re-running reuses what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$PWD/.cache/bin"
mkdir -p "$bin"

yq_version=v4.54.3
if ! "$bin/yq" --version 2>/dev/null | grep -q "${yq_version#v}"; then
  echo "building mikefarah/yq $yq_version into $bin" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/mikefarah/yq/v4@$yq_version"
fi
# go_tool MODULE VERSION PACKAGE: builds PACKAGE at VERSION unless the
# binary's build info already says MODULE VERSION (a `version` subcommand
# says "(devel)" for binaries built this way; the build info knows).
go_tool() {
  local module=$1 version=$2 pkg=$3 name
  name=$(basename "${pkg%/v[0-9]*}") # go install drops a major-version suffix
  if ! go version -m "$bin/$name" 2>/dev/null | grep -q "$module[[:space:]]*$version"; then
    echo "building $pkg $version into $bin" >&2
    GOBIN="$bin" GOFLAGS=-mod=mod go install "$pkg@$version"
  fi
}
# The standalone kustomize runs exec KRM functions (`kubectl kustomize` skips
# them silently): the krender fn tier (cmd/internal/krm/kustomize_test.go) needs it.
go_tool kustomize/v5 v5.5.0 sigs.k8s.io/kustomize/kustomize/v5
# Helm 3 runs krender as its --post-renderer on the chart of
# examples/helm-post-renderer (cmd/internal/cli/helm_test.go).
go_tool helm.sh/helm/v3 v3.22.0 helm.sh/helm/v3/cmd/helm
# staticcheck, which make test runs over every package.
go_tool honnef.co/go/tools v0.8.2 honnef.co/go/tools/cmd/staticcheck
# kubectl (with kustomize inside) for the hash parity test and the e2e tier.
PATH="$PATH:$PWD/.cache/e2e/bin" command -v kubectl >/dev/null || hack/kube-apiserver.sh build-kubectl
# GNU time reports a render's peak memory (cmd/internal/cli/limits_test.go).
[ -x /usr/bin/time ] || {
  echo "installing GNU time (time)" >&2
  apt-get update -qq && apt-get install -y -qq time >/dev/null
}
command -v envsubst >/dev/null || {
  echo "installing GNU envsubst (gettext-base)" >&2
  apt-get update -qq && apt-get install -y -qq gettext-base >/dev/null
}
# ajv-cli (npm) compiles the profile schema in strict mode and validates the
# profiles against it (cmd/internal/cli/schema_tools_test.go); pinned, with its ajv.
ajv_cli_version=5.0.0 ajv_version=8.20.0
if ! grep -q "\"version\": \"$ajv_cli_version\"" .cache/npm/node_modules/ajv-cli/package.json 2>/dev/null ||
  ! grep -q "\"version\": \"$ajv_version\"" .cache/npm/node_modules/ajv/package.json 2>/dev/null; then
  echo "installing ajv-cli@$ajv_cli_version (ajv@$ajv_version) into .cache/npm" >&2
  npm install --prefix .cache/npm --no-audit --no-fund --save-exact "ajv-cli@$ajv_cli_version" "ajv@$ajv_version" >/dev/null
fi
# Python's jsonschema, the other validator the schema test runs.
python3 -c 'import jsonschema' 2>/dev/null || /usr/bin/python3 -c 'import jsonschema' 2>/dev/null || {
  echo "installing Python jsonschema (python3-jsonschema)" >&2
  apt-get update -qq && apt-get install -y -qq python3-jsonschema >/dev/null
}

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
# The standalone kustomize runs exec KRM functions (`kubectl kustomize` skips
# them silently): the krender fn tier (krm/kustomize_test.go) needs it.
kustomize_version=v5.5.0
# (its `version` says "(devel)" when built this way; the build info knows)
if ! go version -m "$bin/kustomize" 2>/dev/null | grep -q "kustomize/v5[[:space:]]*$kustomize_version"; then
  echo "building sigs.k8s.io/kustomize/kustomize/v5 $kustomize_version into $bin" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@$kustomize_version"
fi
# Helm 3 runs krender as its --post-renderer on the chart of
# examples/helm-post-renderer (cmd/krender/helm_test.go).
helm_version=v3.22.0
if ! go version -m "$bin/helm" 2>/dev/null | grep -q "helm.sh/helm/v3[[:space:]]*$helm_version"; then
  echo "building helm.sh/helm/v3 $helm_version into $bin" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "helm.sh/helm/v3/cmd/helm@$helm_version"
fi
# staticcheck, which make test runs over every package.
staticcheck_version=v0.8.2
if ! go version -m "$bin/staticcheck" 2>/dev/null | grep -q "honnef.co/go/tools[[:space:]]*$staticcheck_version"; then
  echo "building honnef.co/go/tools/cmd/staticcheck $staticcheck_version into $bin" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
# kubectl (with kustomize inside) for the hash parity test and the e2e tier.
PATH="$PATH:$PWD/.cache/e2e/bin" command -v kubectl >/dev/null || hack/kube-apiserver.sh build-kubectl
command -v envsubst >/dev/null || {
  echo "installing GNU envsubst (gettext-base)" >&2
  apt-get update -qq && apt-get install -y -qq gettext-base >/dev/null
}
# ajv-cli (npm) compiles the profile schema in strict mode and validates the
# profiles against it (cmd/krender/schema_tools_test.go); pinned, with its ajv.
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

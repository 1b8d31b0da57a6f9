#!/usr/bin/env bash
# Regenerates every generated file of the repository from its generator, as
# Kubernetes' hack/update-codegen.sh does. Each generator is a test that
# holds its file to what the libraries (or the code) say and rewrites it
# under -update; this is the one list of them. Generated Go files are named
# zz_<what>.go and start with "Code generated ... DO NOT EDIT.".
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

# package, and the tests that write its generated files
generators=(
	"./kube/kubeapi TestTypesMatchLibrary|TestShapesMatchLibrary|TestBuiltinGroupsMatchLibrary" # zz_types.go zz_shapes.go zz_groups.go
	"./kube/lifecycle TestTableMatchesLibrary"                                                  # zz_table.go
	"./render/namespace TestBuiltinScopeMatchesClientGo"                                        # zz_scope.go
	"./cmd/internal/cli TestSchemaCommittedCopy"                                                # profiles/profile.schema.json
	"./internal/testing/guard TestDocMatchesTable"                                              # the layer table in docs/architecture.md
)
for g in "${generators[@]}"; do
	pkg=${g%% *}
	tests=${g#* }
	echo "generating: $pkg ($tests)" >&2
	"$GO" test -count=1 -run "^($tests)\$" "$pkg" -update
done

#!/usr/bin/env bash
# Fails when regenerating changes the tree, as Kubernetes'
# hack/verify-codegen.sh does: a generated file edited by hand, or not
# regenerated after its input changed. CI runs it through make test.
set -euo pipefail
cd "$(dirname "$0")/.."
snapshot() { git status --porcelain --untracked-files=all && git --no-pager diff; }
before=$(snapshot)
hack/update-generated.sh
after=$(snapshot)
if [ "$before" != "$after" ]; then
	echo "make generate changed the tree: commit what it wrote (and read the diff)" >&2
	diff <(echo "$before") <(echo "$after") >&2 || true
	git --no-pager diff --stat >&2
	exit 1
fi
echo "generated files are up to date" >&2

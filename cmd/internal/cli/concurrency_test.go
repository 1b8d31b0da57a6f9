package cli

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// TestUserExpressionsUnderParallelTenants renders many tenants concurrently
// with yq expressions that use operators which keep state while they run
// (sort, unique, group_by); run under -race this proves compiled expressions
// are safe to share between tenants.
func TestUserExpressionsUnderParallelTenants(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	var tenants strings.Builder
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&tenants, "  t%02d: {vars: {N: n%02d}}\n", i, i)
	}
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"frag.yaml": "env:\n  - {name: INJECTED, value: \"yes\"}\n",
		"p.yaml": `tenants:
` + tenants.String() + `inject:
  - name: sorted
    fragment: frag.yaml
    where: '([.spec.template.spec.containers[].name] | sort | unique | .[0]) == "a" and (.spec.template.spec.containers | sort_by(.name) | .[0].name) == "a"'
    container: a
`,
		"app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${N}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
        - {name: b, image: b}
        - {name: a, image: a}
`,
	})
	first, errs, code := runIn(t, dir, "render", "-p", "p.yaml", "app.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := strings.Count(first, "name: INJECTED"); got != 24 {
		t.Fatalf("%d injections, want 24", got)
	}
	for i := 0; i < 3; i++ {
		again, _, _ := runIn(t, dir, "render", "-p", "p.yaml", "app.yaml")
		if again != first {
			t.Fatal("output changed between runs")
		}
	}
}

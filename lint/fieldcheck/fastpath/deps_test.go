package fastpath_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// forbidden are what fastpath must not link, so that the lean binary can
// lint built-in objects: the k8s.io/api types (their package
// initialisation costs milliseconds on every command) and krender's
// packages that bring them in.
var forbidden = []string{
	"k8s.io/api/",
	"k8s.io/apimachinery/pkg/util/strategicpatch",
	"k8s.io/client-go/",
	"k8s.io/apiserver/",
	"github.com/krender/krender/kube/lifecycle",
	"github.com/krender/krender/lint/fieldcheck",
	"github.com/krender/krender/lint/check",
}

// TestDependencies keeps fastpath light: go list -deps names none of the
// forbidden packages.
func TestDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		testtool.Missing(t, "the go command is not on PATH: cannot list fastpath's dependencies")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/krender/krender/lint/fieldcheck/fastpath").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "github.com/krender/krender/kube/kubeapi") {
		t.Fatalf("go list named %d packages, kubeapi not among them", len(deps))
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == strings.TrimSuffix(f, "/") || strings.HasPrefix(d, f) && strings.HasSuffix(f, "/") {
				t.Errorf("fastpath links %s", d)
			}
		}
	}
}

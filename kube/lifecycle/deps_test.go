package lifecycle

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// TestLinksNoAPITypes keeps lifecycle light: check's rules read it in the
// lean krender binary, where linking k8s.io/api (or apiextensions) would
// cost start-up time on every command. The library's side is in the tests
// (table_test.go) and kubescheme.
func TestLinksNoAPITypes(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		testtool.Missing(t, "the go command is not on PATH: cannot list lifecycle's dependencies")
	}
	const self = "github.com/krender/krender/kube/lifecycle"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", self).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	importedBy := map[string]string{}
	for _, line := range lines {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if _, seen := importedBy[imp]; !seen {
				importedBy[imp] = f[0]
			}
		}
	}
	if len(lines) < 5 || !strings.HasPrefix(lines[len(lines)-1], self) {
		t.Fatalf("go list named %d packages, the last %q", len(lines), lines[len(lines)-1])
	}
	for _, line := range lines {
		pkg, _, _ := strings.Cut(line, " ")
		for _, heavy := range []string{"k8s.io/api/", "k8s.io/apiextensions-apiserver/", "github.com/krender/krender/kube/kubescheme"} {
			if pkg == strings.TrimSuffix(heavy, "/") || strings.HasPrefix(pkg, heavy) {
				t.Errorf("lifecycle links %s (imported by %s)", pkg, importedBy[pkg])
			}
		}
	}
}

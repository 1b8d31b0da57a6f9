package kubescheme

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// TestEveryLifecyclePackageRegistered: every package of the libraries with
// generated lifecycle methods is in addToScheme, so a library upgrade that
// adds a group version cannot be missed.
func TestEveryLifecyclePackageRegistered(t *testing.T) {
	registered := map[string]bool{}
	for _, typ := range Scheme().AllKnownTypes() {
		registered[typ.PkgPath()] = true
	}
	for _, mod := range []string{"k8s.io/api", "k8s.io/apiextensions-apiserver"} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
		dir := strings.TrimSpace(string(out))
		if err != nil || dir == "" {
			testtool.Missing(t, fmt.Sprintf("go list -m %s: %v (needs the go command and the module cache)", mod, err))
		}
		files, err := filepath.Glob(filepath.Join(dir, "*", "*", "zz_generated.prerelease-lifecycle.go"))
		if err != nil {
			t.Fatal(err)
		}
		more, _ := filepath.Glob(filepath.Join(dir, "pkg", "apis", "*", "*", "zz_generated.prerelease-lifecycle.go"))
		files = append(files, more...)
		n := 0
		for _, f := range files {
			rel, _ := filepath.Rel(dir, filepath.Dir(f))
			if strings.HasPrefix(rel, "testdata") {
				continue
			}
			n++
			if pkg := mod + "/" + filepath.ToSlash(rel); !registered[pkg] {
				t.Errorf("%s has lifecycle methods but is not in addToScheme (packages.go)", pkg)
			}
		}
		if n == 0 {
			t.Errorf("%s: no package with lifecycle methods found in %s", mod, dir)
		}
	}
}

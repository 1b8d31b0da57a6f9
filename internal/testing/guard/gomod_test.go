package guard

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"
)

// installBlockers are the go.mod directives for which `go install
// pkg@version` refuses a module (the README's install line): it must read
// the same as a dependency as it does as the main module. The API
// server's own code (k8s.io/kubernetes) is required at its staging
// modules' real versions instead of replaced.
func installBlockers(name string, text []byte) ([]string, error) {
	f, err := modfile.Parse(name, text, nil)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, r := range f.Replace {
		found = append(found, "replace "+r.Old.Path)
	}
	for _, e := range f.Exclude {
		found = append(found, "exclude "+e.Mod.Path)
	}
	return found, nil
}

func TestGoModInstallable(t *testing.T) {
	name := filepath.Join(Root(t), "go.mod")
	text, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	found, err := installBlockers(name, text)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range found {
		t.Errorf("go.mod: %s: `go install github.com/krender/krender/cmd/krender@latest` refuses a module with it; require the version instead", d)
	}
}

func TestGoModInstallablePlanted(t *testing.T) {
	for _, c := range []struct {
		text  string
		found int
	}{
		{"module m\n\nrequire k8s.io/api v0.35.4\n", 0},
		{"module m\n\nreplace k8s.io/api => k8s.io/api v0.35.4\n", 1},
		{"module m\n\nreplace (\n\tk8s.io/api => k8s.io/api v0.35.4\n\tk8s.io/kubelet => ../kubelet\n)\n", 2},
		{"module m\n\nexclude k8s.io/api v0.0.0\n", 1},
	} {
		found, err := installBlockers("go.mod", []byte(c.text))
		if err != nil || len(found) != c.found {
			t.Errorf("%q: found %v, %v; want %d", c.text, found, err, c.found)
		}
	}
}

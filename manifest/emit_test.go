package manifest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/krender/krender/internal/testtool"
)

// yqBinary finds the real mikefarah yq that `make tools` builds.
func yqBinary(t *testing.T) string {
	t.Helper()
	built, _ := filepath.Abs("../.cache/bin/yq")
	return testtool.Find(t, "KRENDER_YQ", []string{built}, "mikefarah yq not built (run `make tools`); layout parity with yq not checked")
}

// TestLayoutMatchesYq: parsing and printing a file without changes gives the
// bytes `yq eval .` prints, so krender can replace yq pipelines byte for byte.
func TestLayoutMatchesYq(t *testing.T) {
	yq := yqBinary(t)
	files, _ := filepath.Glob("../templates/*/*.yaml")
	files = append(files, "testdata/layout.yaml")
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := Parse(NewSource(f, text))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(objs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exec.Command(yq, "eval", ".", f).Output()
		if err != nil {
			t.Fatalf("yq %s: %v", f, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: krender prints\n%s\nyq prints\n%s", f, got, want)
		}
	}
}

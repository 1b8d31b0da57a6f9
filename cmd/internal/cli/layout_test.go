package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// layoutFiles are manifest's yq layout cases: trailing `---`, separators
// between and after documents, a comment after the last one.
var layoutFiles = []string{
	"model/manifest/testdata/layout.yaml",
	"model/manifest/testdata/trailing-separator.yaml",
	"model/manifest/testdata/separators-between-and-after.yaml",
	"model/manifest/testdata/comment-after-separator.yaml",
	"model/manifest/testdata/empty-documents.yaml",
}

// TestRenderLayoutMatchesYq: with a profile that changes nothing, `krender
// render` prints what `yq eval .` prints, for one file and for several in a
// stream. Hashing is off: renaming ConfigMaps is its job, not the layout's.
func TestRenderLayoutMatchesYq(t *testing.T) {
	built, _ := filepath.Abs("../../../.cache/bin/yq")
	yq := testtool.Find(t, "KRENDER_YQ", []string{built}, "mikefarah yq not built (run `make tools`); render layout parity with yq not checked")
	root, _ := filepath.Abs("../../..")
	profile := filepath.Join(t.TempDir(), "profile.yaml")
	if err := os.WriteFile(profile, []byte("hash: {mode: \"off\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := [][]string{layoutFiles}
	for _, f := range layoutFiles {
		runs = append(runs, []string{f})
	}
	for _, files := range runs {
		out, errs, code := runIn(t, root, append([]string{"render", "-p", profile}, files...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", files, code, errs)
		}
		cmd := exec.Command(yq, append([]string{"eval", "."}, files...)...)
		cmd.Dir = root
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("yq %v: %v", files, err)
		}
		if out != string(want) {
			t.Errorf("%v: krender prints\n%s\nyq prints\n%s", files, out, want)
		}
	}
}

// TestOutputDirLeavesTrailerOut: -o DIR files hold one object each, without
// the empty document a trailing `---` makes in the stream, so adding one to a
// template changes no file under `render --check`.
func TestOutputDirLeavesTrailerOut(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml":   "{}\n",
		"app.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n---\n",
	})
	out := filepath.Join(dir, "out")
	if _, errs, code := runIn(t, dir, "render", "-p", "p.yaml", "-o", out, "app.yaml"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(filepath.Join(out, "serviceaccount-a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// TestOutputDirOwnsOnlyItsFiles: on the real file system, -o DIR renders
// into its own directory again and again, and refuses (exit 2, nothing on
// stdout, the tree unchanged) once DIR holds anything it did not write, or
// when DIR reaches an input through a symbolic link.
func TestOutputDirOwnsOnlyItsFiles(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"p.yaml":              "vars: {V: one}\nhash: {mode: \"off\"}\ntenants:\n  t1: {}\n",
		"manifests/app.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: ${V}\n",
		"elsewhere/keep.yaml": "kept\n",
	})
	out := filepath.Join(dir, "rendered")
	args := []string{"render", "-p", "p.yaml", "-o", out, "manifests"}
	for range 2 {
		if stdout, errs, code := runIn(t, dir, args...); code != 0 || stdout != "" {
			t.Fatalf("exit %d, stdout %q: %s", code, stdout, errs)
		}
	}
	marker, err := os.ReadFile(filepath.Join(out, ".krender-output"))
	if err != nil || !strings.HasSuffix(string(marker), "\nt1/configmap-a.yaml\n") {
		t.Fatalf("marker %q, %v", marker, err)
	}
	if err := os.Symlink(filepath.Join(dir, "manifests"), filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}

	refused := func(what string, args []string, want string) {
		t.Helper()
		before := tree(t, dir)
		stdout, errs, code := runIn(t, dir, args...)
		if code != 2 || stdout != "" || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", what, code, stdout, errs, want)
		}
		if after := tree(t, dir); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the tree changed", what)
		}
	}
	for name, text := range map[string]string{"README.md": "notes\n", "t1/extra.yaml": "kind: ConfigMap\n", ".gitkeep": ""} {
		testtool.WriteFiles(t, out, map[string]string{name: text})
		refused(name, args, out+": the output directory holds "+name+", which krender did not write")
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(out, "t1", "link")); err != nil {
		t.Fatal(err)
	}
	refused("a link", args, "holds t1/link (a symbolic link), which krender did not write")
	if err := os.Remove(filepath.Join(out, "t1", "link")); err != nil {
		t.Fatal(err)
	}
	refused("through a link into the templates", []string{"render", "-p", "p.yaml", "-o", filepath.Join(dir, "alias", "out"), "manifests"},
		"is inside the templates directory manifests")
	refused("the templates' parent through a link", []string{"render", "-p", "p.yaml", "-o", filepath.Join(dir, "alias", ".."), "manifests"},
		"is the current directory") // dir, the working directory of the file system the run is given
	refused("the working directory's parent", []string{"render", "-p", "p.yaml", "-o", filepath.Join(dir, "alias", "..", ".."), "manifests"},
		"holds the current directory")
	refused("--check with -o DIR", []string{"render", "-p", "p.yaml", "--check", out, "-o", filepath.Join(dir, "other"), "manifests"}, "-o "+filepath.Join(dir, "other")+" goes without --check")
	// -o - is the default: said aloud, it changes nothing.
	for _, args := range [][]string{{"--check", out, "-o", "-"}, {"-o", "-", "--check", out}, {"--check", out}} {
		args = append([]string{"render", "-p", "p.yaml"}, append(args, "manifests")...)
		if stdout, errs, code := runIn(t, dir, args...); code != 0 || stdout != "" || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and nothing printed", args, code, stdout, errs)
		}
	}

	// The refusals changed nothing: the directory is still krender's.
	if _, errs, code := runIn(t, dir, append(args[:len(args):len(args)], "--set", "V=two")...); code != 0 {
		t.Fatalf("after the refusals: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(out, "t1", "configmap-a.yaml")); err != nil || !strings.Contains(string(b), "v: two") {
		t.Fatalf("not rewritten: %q, %v", b, err)
	}
}

// TestOutputParentSuggestsTheProfilesDirectory: -o rendered, where
// rendered/dev is the dev profile's render, suggests rendered/prod to a
// render of the prod profile.
func TestOutputParentSuggestsTheProfilesDirectory(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{
		"profiles/dev.yaml":  "vars: {V: one}\n",
		"profiles/prod.yaml": "vars: {V: two}\n",
		"app.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: ${V}\n",
	})
	rendered := filepath.Join(dir, "rendered") // -o goes through the real file system, from the process's directory
	if _, errs, code := runIn(t, dir, "render", "-p", "profiles/dev.yaml", "-o", filepath.Join(rendered, "dev"), "app.yaml"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, errs, code := runIn(t, dir, "render", "-p", "profiles/prod.yaml", "-o", rendered, "app.yaml")
	if want := "did you mean -o " + filepath.ToSlash(filepath.Join(rendered, "prod")) + "?\n"; code != 2 || !strings.HasSuffix(errs, want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and a message ending %q", code, errs, want)
	}
}

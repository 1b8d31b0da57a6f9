package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/krender/krender/internal/suggest"
)

// TestQuickStartMisspelling holds the README's Quick start to its promise
// that a misspelled variable stops the render with file:line:col and a
// did-you-mean: the name the README gives replaces, in a copy of the
// bundled templates, profiles and fragments, the reference it misspells,
// and the Quick start's own command must then fail so.
func TestQuickStartMisspelling(t *testing.T) {
	readme, quick := readmeQuickStart(t)
	claim := regexp.MustCompile("A misspelled `\\$\\{(\\w+)\\}` stops the\\s+render").FindSubmatch(readme)
	if claim == nil {
		t.Fatal("README's Quick start no longer says which misspelled `${NAME}` stops the render")
	}
	typo := string(claim[1])
	args := strings.Fields(quick)

	dir := t.TempDir()
	for _, d := range []string{"templates", "profiles", "inject"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("../../..", d))); err != nil {
			t.Fatal(err)
		}
	}
	// The reference the README's name misspells, in the templates the
	// Quick start renders.
	ref := regexp.MustCompile(`\$\{(\w+)\}`)
	var file, name string
	err := filepath.WalkDir(filepath.Join(dir, args[len(args)-1]), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || file != "" {
			return err
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range ref.FindAllSubmatch(text, -1) {
			if n := string(m[1]); suggest.Closest(typo, []string{n}) == n {
				file, name = p, n
				return os.WriteFile(p, []byte(strings.Replace(string(text), "${"+n+"}", "${"+typo+"}", 1)), 0o644)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if file == "" {
		t.Fatalf("no reference in %s that ${%s} misspells", args[len(args)-1], typo)
	}
	out, errs, code := runIn(t, dir, args...)
	rel, _ := filepath.Rel(dir, file)
	at := regexp.MustCompile(regexp.QuoteMeta(rel) + `:\d+:\d+: undefined variable \$\{` + typo + `\}.*\(did you mean ` + name + `\?\)`)
	if code != 2 || out != "" || !at.MatchString(errs) {
		t.Fatalf("krender %s with ${%s} for ${%s} in %s: exit %d, %d bytes out, stderr:\n%s\nwant exit 2, nothing out, %s:LINE:COL and did you mean %s",
			strings.Join(args, " "), typo, name, rel, code, len(out), errs, rel, name)
	}
}

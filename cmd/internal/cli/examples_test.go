package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestExamplesUseRealFlags: every krender command line in the CI examples
// names a subcommand and flags that exist, so the examples do not rot.
func TestExamplesUseRealFlags(t *testing.T) {
	files := []string{
		"../../../examples/github-actions/krender.yml",
		"../../../examples/gitlab-ci/.gitlab-ci.yml",
		"../../../examples/pre-commit/.pre-commit-config.yaml",
		"../../../examples/argocd-cmp/plugin.yaml",
	}
	line := regexp.MustCompile(`\bkrender (render|check|vars|fn|schema|version|tenants)\b([^\n|>]*)`)
	help := map[string]string{}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			sub := m[1]
			if _, ok := help[sub]; !ok {
				out, _, _ := runIn(t, ".", sub, "--help")
				help[sub] = out
			}
			for _, word := range strings.Fields(m[2]) {
				if !strings.HasPrefix(word, "--") {
					continue
				}
				flag, _, _ := strings.Cut(strings.TrimRight(word, "`'\";,)"), "=")
				n++
				if !strings.Contains(help[sub], flag+" ") {
					t.Errorf("%s: krender %s has no flag %s", f, sub, flag)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d flags found in the examples", n)
	}
}

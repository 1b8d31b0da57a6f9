package guard

import (
	"go/parser"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// packageMapHeader opens docs/architecture.md's map of the packages.
const packageMapHeader = "| package | role |\n"

// backticked is a folder path written in backticks: `files/loader`.
var backticked = regexp.MustCompile("`([a-z0-9][a-z0-9_/-]*)`")

// TestPackageMapIsTrue holds docs/architecture.md's map of the packages to
// the tree: every folder its first column names holds Go code, and every
// folder of the module that holds Go code is named in it, in a first
// column or in a role (`render/subst/shellformat` in render/subst's).
func TestPackageMapIsTrue(t *testing.T) {
	root := Root(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	tr := Read(t, parser.PackageClauseOnly, nil)
	var pkgs []string
	for _, f := range tr.Files {
		if d := path.Dir(f.Rel); !slices.Contains(pkgs, d) {
			pkgs = append(pkgs, d)
		}
	}
	for _, p := range packageMapProblems(string(doc), pkgs) {
		t.Error("docs/architecture.md: " + p)
	}
}

// packageMapProblems is what the map of the packages in doc gets wrong
// about the folders pkgs, which hold the module's Go code.
func packageMapProblems(doc string, pkgs []string) []string {
	start := strings.Index(doc, packageMapHeader)
	if start < 0 {
		return []string{"no map of the packages (a line " + strings.TrimSpace(packageMapHeader) + ")"}
	}
	table := doc[start:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end]
	}
	var problems []string
	named := map[string]bool{}
	for _, row := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(row, "|")
		if len(cells) < 3 {
			problems = append(problems, "not a row of the map: "+row)
			continue
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			named[m[1]] = true
			if !slices.Contains(pkgs, m[1]) {
				problems = append(problems, "the map names "+m[1]+", which holds no Go code")
			}
		}
		for _, m := range backticked.FindAllStringSubmatch(strings.Join(cells[2:], "|"), -1) {
			named[m[1]] = true
		}
	}
	for _, p := range pkgs {
		if !named[p] {
			problems = append(problems, p+" is missing from the map of the packages")
		}
	}
	return problems
}

func TestPackageMapPlanted(t *testing.T) {
	doc := "# x\n\n" + packageMapHeader + "| --- | --- |\n| `render` | the engine; its stage `render/subst` |\n| `lint/gone` | moved away |\n\nafter\n"
	got := packageMapProblems(doc, []string{"render", "render/subst", "files/new"})
	want := []string{"the map names lint/gone, which holds no Go code", "files/new is missing from the map of the packages"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	if got := packageMapProblems("# no map\n", []string{"render"}); len(got) != 1 {
		t.Errorf("a document without the map: found %q", got)
	}
}

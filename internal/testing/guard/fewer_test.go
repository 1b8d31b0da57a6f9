package guard

import (
	"go/token"
	"slices"
	"strings"
	"testing"
)

// fewer are packages held to fewer of krender's imports than their layer
// allows, each with the folders it may import from: none makes a leaf.
var fewer = map[string][]string{
	// A leaf: the stages that note a rule, the rule table and the actions
	// that print one name its id without linking anything of krender.
	"model/ruleid": nil,
	// The rule table: what only names the rules (the profile's JSON
	// schema, check.disable) links neither the linter nor a stage.
	"lint/rule": {"model"},
}

// TestFewerImports holds each package of fewer to the folders it may
// import from.
func TestFewerImports(t *testing.T) {
	for _, p := range fewerProblems(readImports(t), fewer) {
		t.Error(p)
	}
}

// fewerProblems is each import of pkgs (by folder) that a package of held
// may not make, and each package of held that pkgs does not hold.
func fewerProblems(pkgs map[string][]imported, held map[string][]string) []string {
	var problems []string
	for _, dir := range sortedKeys(held) {
		imps, ok := pkgs[dir]
		if !ok {
			problems = append(problems, dir+" holds no package: a package that moved or went leaves the list too")
			continue
		}
		for _, imp := range imps {
			rel := strings.TrimPrefix(imp.path, Module+"/")
			if !slices.ContainsFunc(held[dir], func(f string) bool { return rel == f || strings.HasPrefix(rel, f+"/") }) {
				problems = append(problems, imp.pos.String()+": "+dir+" imports "+rel+", and may import only from "+mayImport(held[dir]))
			}
		}
	}
	return problems
}

func mayImport(folders []string) string {
	if len(folders) == 0 {
		return "nothing of krender (a leaf)"
	}
	return strings.Join(folders, ", ")
}

func TestFewerImportsPlanted(t *testing.T) {
	at := func(file string) token.Position { return token.Position{Filename: file, Line: 3, Column: 2} }
	pkgs := map[string][]imported{
		"model/ruleid": {{Module + "/model/filepos", at("model/ruleid/ruleid.go")}},
		"lint/rule":    {{Module + "/model/filepos", at("lint/rule/rule.go")}, {Module + "/render/subst", at("lint/rule/rule.go")}},
		"lint/check":   {{Module + "/render/subst", at("lint/check/rules.go")}},
	}
	held := map[string][]string{"model/ruleid": nil, "lint/rule": {"model"}, "lint/gone": nil}
	got := fewerProblems(pkgs, held)
	want := []string{
		"lint/gone holds no package: a package that moved or went leaves the list too",
		"lint/rule/rule.go:3:2: lint/rule imports render/subst, and may import only from model",
		"model/ruleid/ruleid.go:3:2: model/ruleid imports model/filepos, and may import only from nothing of krender (a leaf)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found %q,\nwant %q", got, want)
	}
}

// Package doccheck holds the documentation to the code it tells readers to
// run.
package guard

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goTest is a `go test ./PKG` command line in the documentation, with its
// -run and -bench patterns.
var goTest = regexp.MustCompile("go test \\./([A-Za-z0-9_/.-]*)((?:\\s+-[a-z]+(?:=[^\\s`]*|\\s+'[^']*'|\\s+[^\\s`-][^\\s`]*)?)*)")

var flagValue = regexp.MustCompile(`-(run|bench)(?:=|\s+)('[^']*'|[^\s']+)`)

var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)

// TestDocumentedGoTestCommandsRun: every `go test ./PKG -run X -bench Y`
// the documentation gives names a package that exists and patterns that
// select one of its tests or benchmarks, so that a reader who copies it
// measures what the text says (a package renamed leaves "no packages to
// test" behind, and a pattern that matches nothing passes in silence).
func TestDocumentedGoTestCommandsRun(t *testing.T) {
	docs, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../../../README.md", "../../../BENCHMARKS.md")
	found := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goTest.FindAllStringSubmatch(string(text), -1) {
			found++
			checkCommand(t, filepath.Base(doc), m[0], m[1], m[2])
		}
	}
	if found < 10 {
		t.Fatalf("found %d go test commands in the documentation: the pattern no longer reads them", found)
	}
}

func checkCommand(t *testing.T, doc, cmd, pkg, flags string) {
	t.Helper()
	if pkg == "..." {
		return
	}
	dir := filepath.Join("../../..", pkg)
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if len(files) == 0 {
		t.Errorf("%s: %q: ./%s has no tests", doc, cmd, pkg)
		return
	}
	var funcs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			funcs = append(funcs, m[1])
		}
	}
	for _, f := range flagValue.FindAllStringSubmatch(flags, -1) {
		pattern := strings.Trim(f[2], "'")
		if pattern == "^$" {
			continue // nothing but the other flag's
		}
		re, err := regexp.Compile(strings.SplitN(pattern, "/", 2)[0])
		if err != nil {
			t.Errorf("%s: %q: -%s %s: %v", doc, cmd, f[1], pattern, err)
			continue
		}
		if !matchesOne(re, funcs, f[1]) {
			t.Errorf("%s: %q: -%s %s selects nothing in ./%s", doc, cmd, f[1], pattern, pkg)
		}
	}
}

func matchesOne(re *regexp.Regexp, funcs []string, flag string) bool {
	for _, f := range funcs {
		isBench := strings.HasPrefix(f, "Benchmark")
		if isBench == (flag == "bench") && re.MatchString(f) {
			return true
		}
	}
	return false
}

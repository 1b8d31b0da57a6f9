package guard

import (
	"fmt"
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
	root := Root(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "BENCHMARKS.md"), filepath.Join(root, "CHANGELOG.md"))
	found := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		n, problems := commandProblems(root, filepath.Base(doc), string(text))
		found += n
		for _, p := range problems {
			t.Error(p)
		}
	}
	if found < 10 {
		t.Fatalf("found %d go test commands in the documentation: the pattern no longer reads them", found)
	}
}

// commandProblems is what the `go test` commands of text (the document
// doc) get wrong about the module at root, and how many it read.
func commandProblems(root, doc, text string) (int, []string) {
	var problems []string
	commands := goTest.FindAllStringSubmatch(text, -1)
	for _, m := range commands {
		problems = append(problems, checkCommand(root, doc, m[0], m[1], m[2])...)
	}
	return len(commands), problems
}

func checkCommand(root, doc, cmd, pkg, flags string) []string {
	if pkg == "..." {
		return nil
	}
	dir := filepath.Join(root, pkg)
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if len(files) == 0 {
		return []string{fmt.Sprintf("%s: %q: ./%s has no tests", doc, cmd, pkg)}
	}
	var funcs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return []string{err.Error()}
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			funcs = append(funcs, m[1])
		}
	}
	var problems []string
	for _, f := range flagValue.FindAllStringSubmatch(flags, -1) {
		pattern := strings.Trim(f[2], "'")
		if pattern == "^$" {
			continue // nothing but the other flag's
		}
		re, err := regexp.Compile(strings.SplitN(pattern, "/", 2)[0])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %q: -%s %s: %v", doc, cmd, f[1], pattern, err))
			continue
		}
		if !matchesOne(re, funcs, f[1]) {
			problems = append(problems, fmt.Sprintf("%s: %q: -%s %s selects nothing in ./%s", doc, cmd, f[1], pattern, pkg))
		}
	}
	return problems
}

// TestDocumentedGoTestCommandsPlanted: in a tree of one package, a command
// naming another package, or a pattern that selects none of its tests or
// benchmarks, is found; one that selects a test is not.
func TestDocumentedGoTestCommandsPlanted(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package pkg\n\nimport \"testing\"\n\nfunc TestFoo(t *testing.T) {}\n\nfunc BenchmarkBar(b *testing.B) {}\n"
	if err := os.WriteFile(filepath.Join(root, "pkg", "pkg_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]int{
		"run `go test ./pkg -run TestFoo` and `go test ./pkg -run '^$' -bench Bar`": 0,
		"run `go test ./gone -run TestFoo`":                                         1,
		"run `go test ./pkg -run TestBar`":                                          1,
		"run `go test ./pkg -bench Foo`":                                            1,
		"run `go test ./pkg -run 'Foo|(' `":                                         1,
	} {
		if n, got := commandProblems(root, "doc.md", text); n == 0 || len(got) != want {
			t.Errorf("%s: read %d commands, found %q, want %d problems", text, n, got, want)
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

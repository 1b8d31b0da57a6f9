package guard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// mains read the process's environment and set its collector, and hand
// both to the command line (cli.Process); no other code of krender does.
var mains = []string{"cmd/krender/main.go", "cmd/krender-check/main.go"}

// runsProcesses are the trees whose code runs programs of its own (the
// benchmark, test support, end-to-end tests) and so builds and reads their
// environment: they are not krender, and the rule is krender's.
var runsProcesses = []string{"hack", "internal/testing", "e2e"}

// reads are the functions that read the process's environment; sets those
// that change it or the process's collector. exec.LookPath reads PATH too:
// the command line looks on its environment's PATH (cli.lookPath).
var (
	reads = map[string][]string{
		"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
		"syscall": {"Getenv", "Environ"},
	}
	sets = map[string][]string{
		"os":            {"Setenv", "Unsetenv", "Clearenv"},
		"syscall":       {"Setenv", "Unsetenv", "Clearenv"},
		"runtime/debug": {"SetGCPercent", "SetMemoryLimit"},
	}
)

// TestProcessStateOnlyInMain holds the rule docs/architecture.md states:
// the environment is read and the collector set only in the mains, which
// hand them to the command line; no test changes its own process's
// environment or collector (debug.SetMemoryLimit(-1) only reads the limit).
func TestProcessStateOnlyInMain(t *testing.T) {
	tr := Read(t, 0, nil)
	if len(tr.Files) < 100 {
		t.Fatalf("read %d Go files: the walk found too few to hold to the rule", len(tr.Files))
	}
	for _, f := range tr.Files {
		for _, msg := range processUses(tr.Fset, f.AST, f.Rel) {
			t.Error(msg)
		}
	}
}

// processUses is what file rel (f) does to its process's environment or
// collector against the rule, one message each; a dot import of os,
// syscall or runtime/debug is one too, in a test as well.
func processUses(fset *token.FileSet, f *ast.File, rel string) []string {
	test := strings.HasSuffix(rel, "_test.go")
	if !test && (slices.Contains(mains, rel) || Under(rel, runsProcesses...)) {
		return nil
	}
	reading := map[*ast.SelectorExpr]bool{} // debug.SetMemoryLimit(-1)
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 1 && isMinusOne(c.Args[0]) {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "SetMemoryLimit" {
				reading[s] = true
			}
		}
		return true
	})
	var msgs []string
	for _, u := range usesOf(f, func(p string) bool { return reads[p] != nil || sets[p] != nil }) {
		at := fset.Position(u.pos).String() + ": "
		switch {
		case u.name == ".":
			msgs = append(msgs, at+u.String()+" hides its calls from the rule that only the mains read the environment or set the collector: import it by name")
		case reading[u.sel]:
		case slices.Contains(sets[u.path], u.name):
			msgs = append(msgs, at+u.String()+" changes the process's settings: only cmd/krender*/main.go may, handing them to the command line as cli.Process (a test hands it a recorder)")
		case !test && slices.Contains(reads[u.path], u.name):
			msgs = append(msgs, at+u.String()+" reads the process's environment: only cmd/krender*/main.go may; use the environment handed down (cli.Process.Environ, the host's LookupEnv)")
		}
	}
	return msgs
}

// runsPrograms are the ways to run a program or find one on PATH: only the
// command line (the hand-over to krender-check, cli.lookPath) does, beside
// the trees that are not krender (runsProcesses) and tests. An action, the
// linter or anything below runs nothing.
var runsPrograms = map[string][]string{
	"os/exec": nil, // all of it: LookPath, Command, CommandContext
	"os":      {"StartProcess"},
	"syscall": {"Exec", "ForkExec", "StartProcess"},
}

// programRuns is where file rel (f) runs or looks for a program against
// the rule, one message each.
func programRuns(fset *token.FileSet, f *ast.File, rel string) []string {
	if strings.HasSuffix(rel, "_test.go") || Under(rel, "cmd") || Under(rel, runsProcesses...) {
		return nil
	}
	var msgs []string
	for _, u := range usesOf(f, func(p string) bool { _, ok := runsPrograms[p]; return ok }) {
		if u.name == "." || runsPrograms[u.path] == nil || slices.Contains(runsPrograms[u.path], u.name) {
			msgs = append(msgs, fset.Position(u.pos).String()+": "+u.String()+" runs or looks for a program: only the command line (cmd/internal/cli, and its hand-over to krender-check, cmd/internal/handover) may, with the environment the main handed it")
		}
	}
	return msgs
}

// TestNoProgramRunBelowCommandLine holds every package below the command
// line to running no program and reading no PATH.
func TestNoProgramRunBelowCommandLine(t *testing.T) {
	tr := Read(t, 0, nil)
	for _, f := range tr.Files {
		for _, msg := range programRuns(tr.Fset, f.AST, f.Rel) {
			t.Error(msg)
		}
	}
}

func TestProgramRunsPlanted(t *testing.T) {
	for _, c := range []struct {
		rel, src string
		found    bool
	}{
		{"action/x.go", `import "os/exec"; var p, _ = exec.LookPath("kubectl")`, true},
		{"action/gc/x.go", `import run "os/exec"; var c = run.Command("kubectl")`, true},
		{"render/x.go", `import . "os/exec"; var p, _ = LookPath("yq")`, true},
		{"lint/report/x.go", `import "syscall"; var err = syscall.Exec("/bin/sh", nil, nil)`, true},
		{"files/loader/x.go", `import "os"; var p, err = os.StartProcess("/bin/sh", nil, nil)`, true},
		{"cmd/internal/cli/x.go", `import "os/exec"; var p, _ = exec.LookPath("/usr/bin/krender-check")`, false},
		{"cmd/internal/handover/x.go", `import "os/exec"; var c = exec.Command("/usr/bin/krender-check")`, false},
		{"action/x_test.go", `import "os/exec"; var c = exec.Command("kustomize")`, false},
		{"action/x.go", `import "os"; var e = os.ErrNotExist`, false},
	} {
		if got := plant(t, c.rel, c.src, programRuns); (len(got) > 0) != c.found {
			t.Errorf("%s: %s: found %q, want found %v", c.rel, c.src, got, c.found)
		}
	}
}

func isMinusOne(e ast.Expr) bool {
	u, ok := e.(*ast.UnaryExpr)
	if !ok || u.Op != token.SUB {
		return false
	}
	l, ok := u.X.(*ast.BasicLit)
	return ok && l.Value == "1"
}

// TestProcessUses: each way a new raw read or setting is written is found,
// and what the rule allows is not.
func TestProcessUses(t *testing.T) {
	cases := []struct {
		rel, src string
		found    bool
	}{
		{"render/x.go", `import "os"; var v = os.Getenv("GOMEMLIMIT")`, true},
		{"cmd/internal/cli/x.go", `import "os"; var f = os.LookupEnv`, true},
		{"cmd/internal/cli/x.go", `import "os"; var e = append(os.Environ(), "A=b")`, true},
		{"action/x.go", `import sys "syscall"; var v, _ = sys.Getenv("HOME")`, true},
		{"cmd/internal/cli/x.go", `import "runtime/debug"; func f() { debug.SetGCPercent(200) }`, true},
		{"cmd/internal/cli/x.go", `import "runtime/debug"; var set = debug.SetMemoryLimit`, true},
		{"cmd/internal/cli/x_test.go", `import "runtime/debug"; func f() { debug.SetMemoryLimit(1 << 20) }`, true},
		{"action/x_test.go", `import "os"; func f() { os.Setenv("A", "b") }`, true},
		{"hack/bench/x_test.go", `import "os"; func f() { os.Unsetenv("A") }`, true},
		{"cmd/krender/main.go", `import "os"; var e = os.Environ()`, false},
		{"cmd/krender/main.go", `import "runtime/debug"; var set = debug.SetMemoryLimit`, false},
		{"hack/bench/main.go", `import "os"; var e = os.Environ()`, false},
		{"internal/testing/testtool/x.go", `import "os"; var v = os.Getenv("KRENDER_REQUIRE_TOOLS")`, false},
		{"action/x_test.go", `import "runtime/debug"; var limit = debug.SetMemoryLimit(-1)`, false},
		{"lint/report/x_test.go", `import "os"; var env = append(os.Environ(), "A=b")`, false},
		{"render/x.go", `import "os"; var _, err = os.ReadFile("x")`, false},
		{"render/x.go", `import "runtime/debug"; var s = debug.Stack()`, false},
		{"action/x.go", `import . "os"; var v = Getenv("HOME")`, true},
		{"action/x_test.go", `import . "os"; func f() { Setenv("A", "b") }`, true},
		{"render/x.go", `import d "runtime/debug"; func f() { d.SetGCPercent(50) }`, true},
	}
	for _, c := range cases {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, c.rel, "package x\n"+c.src+"\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := processUses(fset, f, c.rel); (len(got) > 0) != c.found {
			t.Errorf("%s: %s: found %q, want found %v", c.rel, c.src, got, c.found)
		}
	}
}

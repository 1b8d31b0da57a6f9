package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/krender/krender/files/filesys"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGolden runs every case under testdata/<area>/<case>/: `args` holds the
// command line (paths relative to the case directory), `stdout.golden` and
// `stderr.golden` (ending with the exit status) what it must print, and an
// optional `stdin` what standard input holds (else it is empty). Each case
// runs twice to prove the output does not depend on anything but its inputs.
// An optional `env` holds the environment --set-env reads, one NAME=VALUE a
// line (else it is empty).
func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("../../../testdata/*/*/args")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases found under testdata/")
	}
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		name := strings.TrimPrefix(filepath.ToSlash(dir), "../../../testdata/")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			args := strings.Fields(string(raw))
			dir := dir
			// A case never writes to the tree: what it writes is kept in memory,
			var fsys filesys.FileSystem = newScratchFS(t, dir)
			if strings.HasPrefix(name, "hostile/") || strings.HasPrefix(name, "output/") {
				dir = mustAbs(t, dir) // but a hostile or -o DIR one runs in its own copy, links included
				runDir, done := hostileCase(t, dir)
				defer done()
				fsys = filesys.Dir(runDir)
			}
			stdin, err := os.ReadFile(filepath.Join(dir, "stdin"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			env := caseEnv(t, dir)
			stdout, stderr := runCaseStdin(t, fsys, args, stdin, env)
			again, againErr := runCaseStdin(t, fsys, args, stdin, env)
			if again != stdout || againErr != stderr {
				t.Fatalf("second run differs from the first: output is not deterministic")
			}
			compareGolden(t, filepath.Join(dir, "stdout.golden"), stdout)
			compareGolden(t, filepath.Join(dir, "stderr.golden"), stderr)
		})
	}
}

func runCase(t *testing.T, fsys filesys.FileSystem, args []string) (string, string) {
	t.Helper()
	return runCaseStdin(t, fsys, args, nil, noEnv)
}

func runCaseStdin(t *testing.T, fsys filesys.FileSystem, args []string, stdin []byte, env LookupEnv) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runChecked(t, args, bytes.NewReader(stdin), &out, &errb, fsys, env)
	if strings.Contains(errb.String(), "krender: internal error") {
		t.Fatalf("krender crashed (a bug, whatever the input):\n%s", errb.String())
	}
	return out.String(), errb.String() + fmt.Sprintf("exit status %d\n", code)
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test ./cmd/internal/cli -update and review it): %v", err)
	}
	if string(want) != got {
		// A unified diff: an inserted line shows as one "+" line, not as a
		// change to every line after it.
		t.Errorf("%s differs (run go test ./cmd/internal/cli -update and review the diff):\n%s",
			path, udiff.Unified(path, "got", string(want), got))
	}
}

// caseEnv is a golden case's environment: its `env` file, one NAME=VALUE a
// line, else none.
func caseEnv(t *testing.T, dir string) LookupEnv {
	t.Helper()
	vars := caseEnviron(t, dir)
	return func(name string) (string, bool) {
		for _, kv := range vars {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
}

// caseEnviron is a golden case's `env` file as os/exec takes it.
func caseEnviron(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "env"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var vars []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if !strings.Contains(line, "=") {
			t.Fatalf("%s/env: %q is not NAME=VALUE", dir, line)
		}
		vars = append(vars, line)
	}
	return vars
}

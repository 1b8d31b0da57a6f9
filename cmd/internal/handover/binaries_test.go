package handover

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

func TestMain(m *testing.M) { testtool.Main(m) }

// TestBuildsOfOneCommitAgree builds krender and krender-check from one
// commit twice, as the README's `go install` line does in a clone (stamped
// with the revision, even where GOFLAGS=-buildvcs=false as on many CI
// machines) and as -buildvcs=false or `go install ./cmd/...` in a worktree
// does (no revision), and runs each krender with the other build's
// krender-check: the hand-over works both ways and prints what
// krender-check prints when run itself.
func TestBuildsOfOneCommitAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: builds krender and krender-check twice")
	}
	git := testtool.Find(t, "KRENDER_GIT", []string{"git"}, "two builds of one commit, with and without its revision, are not run against each other")
	src, head := commitModule(t, git)
	built := map[bool]string{}
	for _, vcs := range []bool{true, false} {
		dir := t.TempDir()
		args := []string{"build", "-buildvcs=false", "-o", dir + string(filepath.Separator), "./cmd/krender", "./cmd/krender-check"}
		if vcs {
			args = readmeInstall(t)
		}
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = src, append(os.Environ(), "GOFLAGS=-buildvcs=false", "GOBIN="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		built[vcs] = dir
	}
	stamped, plain := versionOf(t, filepath.Join(built[true], "krender")), versionOf(t, filepath.Join(built[false], Binary))
	if !strings.Contains(stamped, " revision "+head) || !strings.Contains(plain, " revision unknown ") {
		t.Fatalf("the builds say %q and %q: want the commit %s and no revision, or the test tells nothing", stamped, plain, head)
	}

	dir := "../../../testdata/secrets/check-secret-set-env" // a misspelled field: krender hands it over
	args := []string{"check", "-p", "profile.yaml", "--set-env", "DB_PASSWORD=CI_DB_PASSWORD", "app.yaml"}
	vars, err := os.ReadFile(filepath.Join(dir, "env")) // what --set-env reads, NAME=VALUE a line
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), strings.Fields(string(vars))...)
	run := func(bin string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		return status(t, cmd), out.String(), errb.String()
	}
	wantCode, wantOut, wantErr := run(filepath.Join(built[false], Binary))
	if wantCode != 1 || !strings.Contains(wantOut, "[unknown-field]") {
		t.Fatalf("%s itself: exit %d, stdout %q, stderr %q: want the findings, or the test tells nothing", Binary, wantCode, wantOut, wantErr)
	}
	for _, krenderVCS := range []bool{true, false} {
		pair := t.TempDir()
		place(t, filepath.Join(built[krenderVCS], "krender"), filepath.Join(pair, "krender"))
		place(t, filepath.Join(built[!krenderVCS], Binary), filepath.Join(pair, Binary))
		code, out, errb := run(filepath.Join(pair, "krender"))
		if code != wantCode || out != wantOut || errb != wantErr {
			t.Errorf("krender with -buildvcs=%v, krender-check with -buildvcs=%v: exit %d, stdout %q, stderr %q; %s itself: exit %d, stdout %q",
				krenderVCS, !krenderVCS, code, out, errb, Binary, wantCode, wantOut)
		}
	}
}

// readmeInstall is the README's `go install ... ./cmd/...` line for a
// clone, as arguments of go.
func readmeInstall(t *testing.T) []string {
	t.Helper()
	text, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`go (install [^`]*\\./cmd/\\.\\.\\.)`").FindStringSubmatch(strings.ReplaceAll(string(text), "\n", " "))
	if m == nil {
		t.Fatal("README.md has no `go install ... ./cmd/...` line for a clone")
	}
	return strings.Fields(m[1])
}

// commitModule copies the module's files, as they are in the work tree,
// into a new repository and commits them there: a clone's build is then
// stamped with that commit wherever the test runs (Go stamps none in a git
// worktree). It returns the copy and the commit.
func commitModule(t *testing.T, git string) (string, string) {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	list := exec.Command(git, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list.Dir = root
	names, err := list.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	src := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(names), "\x00"), "\x00") {
		from := filepath.Join(root, name)
		if fi, err := os.Lstat(from); err != nil || !fi.Mode().IsRegular() {
			continue // deleted, or a link (the shared cache), which no build reads
		}
		copyFile(t, from, filepath.Join(src, name))
	}
	gitIn := func(args ...string) string {
		cmd := exec.Command(git, append([]string{"-c", "user.name=krender", "-c", "user.email=dev@krender.invalid"}, args...)...)
		cmd.Dir = src
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitIn("init", "-q")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "krender")
	return src, gitIn("rev-parse", "HEAD")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// place puts a binary at to as a file of its own (a hard link, else a
// copy): krender finds krender-check beside the file it runs from, links
// followed.
func place(t *testing.T, from, to string) {
	t.Helper()
	if os.Link(from, to) != nil {
		copyFile(t, from, to)
	}
}

// versionOf is what the program bin says of its build.
func versionOf(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

// status runs cmd and returns its exit status; it fails the test when cmd
// does not start.
func status(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	if err := cmd.Run(); cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

// TestKrenderCheckRefusesAnotherKrender: krender-check run by a krender of
// another build refuses, since the two must read flags and profiles alike:
// one of an earlier release (the version line alone), one that reads
// other flags, profiles or rules, one whose word it cannot read. It runs
// for the krender built beside it, whose word it reads as krender gives it.
func TestKrenderCheckRefusesAnotherKrender(t *testing.T) {
	krender := testtool.Krender(t)
	helper := filepath.Join(filepath.Dir(krender), Binary)
	for _, c := range []struct {
		env    []string
		code   int
		stderr string
	}{
		{[]string{legacyParentEnv + "=krender v0.0.1 go1.20"}, 2, `krender that ran it is "krender v0.0.1 go1.20": install both from the same release`},
		{[]string{parentEnv + `={"version":"krender v0.0.2 go1.20","contract":"00"}`, legacyParentEnv + "=krender v0.0.2 go1.20"}, 2,
			`krender that ran it is "krender v0.0.2 go1.20", and they read other flags, profiles or rules: install both from the same release`},
		{[]string{parentEnv + "=krender v0.0.3"}, 2, `the krender that ran krender-check says "krender v0.0.3" of its build, which this release does not read`},
		{[]string{parentEnv + "=" + word(t, krender)}, 0, ""},
	} {
		cmd := exec.Command(helper, "version")
		cmd.Env = append(os.Environ(), c.env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := status(t, cmd)
		if code != c.code || (code == 2) != (out.Len() == 0) || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, %q", c.env, code, out.String(), errb.String(), c.code, c.stderr)
		}
	}
}

// word is what the krender binary tells krender-check of its build at a
// hand-over (parentEnv), as a stand-in for krender-check on PATH prints it.
func word(t *testing.T, krender string) string {
	t.Helper()
	alone, dir := t.TempDir(), t.TempDir()
	copyFile(t, krender, filepath.Join(alone, "krender"))
	bin := stand(t, `printf '%s' "$`+parentEnv+`"`)
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {}\n", "a.yaml": "kind: ConfigMap\n", "crd.yaml": "kind: CustomResourceDefinition\n"})
	cmd := exec.Command(filepath.Join(alone, "krender"), "check", "-p", "p.yaml", "--crds", "crd.yaml", "a.yaml") // --crds: handed over at once
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + bin}
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"contract":`) {
		t.Fatalf("krender handing check over: %v, %s gets %q", err, parentEnv, out)
	}
	return string(out)
}

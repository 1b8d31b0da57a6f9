package cli

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

// TestBuildsOfOneCommitAgree builds krender and krender-check from one
// commit twice, as the README's `go install` line does in a clone (stamped
// with the revision, even where GOFLAGS=-buildvcs=false as on many CI
// machines) and as -buildvcs=false or `go install ./cmd/...` in a worktree
// does (no revision), and runs each krender with the other build's
// krender-check: the hand-over works both ways and prints what
// krender-check prints in-process.
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
	stamped, plain := version(t, filepath.Join(built[true], "krender")), version(t, filepath.Join(built[false], "krender-check"))
	if !strings.Contains(stamped, " revision "+head) || !strings.Contains(plain, " revision unknown ") {
		t.Fatalf("the builds say %q and %q: want the commit %s and no revision, or the test tells nothing", stamped, plain, head)
	}

	dir := "../../../testdata/secrets/check-secret-set-env" // a misspelled field: krender hands it over
	args := []string{"check", "-p", "profile.yaml", "--set-env", "DB_PASSWORD=CI_DB_PASSWORD", "app.yaml"}
	var wantOut, wantErr bytes.Buffer
	wantCode := runWith(args, strings.NewReader(""), &wantOut, &wantErr, inTree(dir), caseEnv(t, dir))
	if wantCode != exitFindings {
		t.Fatalf("in-process: exit %d, stderr %q", wantCode, wantErr.String())
	}
	for _, krenderVCS := range []bool{true, false} {
		pair := t.TempDir()
		place(t, filepath.Join(built[krenderVCS], "krender"), filepath.Join(pair, "krender"))
		place(t, filepath.Join(built[!krenderVCS], CheckBinary), filepath.Join(pair, CheckBinary))
		cmd := exec.Command(filepath.Join(pair, "krender"), args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), caseEnviron(t, dir)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := exitCode(t, cmd.Run())
		if code != wantCode || out.String() != wantOut.String() || errb.String() != wantErr.String() {
			t.Errorf("krender with -buildvcs=%v, krender-check with -buildvcs=%v: exit %d, stdout %q, stderr %q; in-process: exit %d, stdout %q",
				krenderVCS, !krenderVCS, code, out.String(), errb.String(), wantCode, wantOut.String())
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

func version(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

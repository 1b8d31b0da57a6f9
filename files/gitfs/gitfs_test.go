package gitfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "PATH=" + filepath.Dir(gitBin(t))}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func gitBin(t *testing.T) string {
	p, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed to test reading a commit:", err)
	}
	return p
}

// testGit runs git as the command line's runner does, for these tests.
type testGit struct {
	bin, dir string
	env      []string
}

func (g testGit) cmd(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir, cmd.Env = g.dir, g.env
	return cmd
}

func (g testGit) Output(ctx context.Context, args ...string) ([]byte, error) {
	out, err := g.cmd(ctx, args).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = errors.New(strings.TrimSpace(string(ee.Stderr)))
	}
	return out, err
}

func (g testGit) Pipe(args ...string) (io.WriteCloser, io.Reader, func() error, error) {
	cmd := g.cmd(context.Background(), args)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return in, out, func() error { in.Close(); return cmd.Wait() }, nil
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadsTheCommitNotTheWorkTree: the base is the commit's files, seen
// from the working directory's place, links followed within the commit;
// the work tree, the index and the refs are left as they were.
func TestReadsTheCommitNotTheWorkTree(t *testing.T) {
	top := t.TempDir()
	gitIn(t, top, "init", "-q", "-b", "main")
	write(t, filepath.Join(top, "app/profile.yaml"), "vars: {A: base}\n")
	write(t, filepath.Join(top, "app/templates/cm.yaml"), "kind: ConfigMap\n")
	if err := os.Symlink("templates/cm.yaml", filepath.Join(top, "app/link.yaml")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, top, "add", "-A")
	gitIn(t, top, "commit", "-q", "-m", "base")
	write(t, filepath.Join(top, "app/profile.yaml"), "vars: {A: head}\n")
	write(t, filepath.Join(top, "app/new.yaml"), "new\n")
	gitIn(t, top, "add", "app/new.yaml")
	before := gitIn(t, top, "status", "--porcelain") + gitIn(t, top, "show-ref")

	g := testGit{bin: gitBin(t), env: []string{"HOME=" + top, "GIT_CONFIG_NOSYSTEM=1"}, dir: filepath.Join(top, "app")}
	f, err := Open(context.Background(), g, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := f.ReadFile("profile.yaml")
	if err != nil || string(b) != "vars: {A: base}\n" {
		t.Fatalf("profile.yaml = %q, %v; want the commit's", b, err)
	}
	if b, err := f.ReadFile("link.yaml"); err != nil || string(b) != "kind: ConfigMap\n" {
		t.Fatalf("link.yaml = %q, %v: the link is followed in the commit", b, err)
	}
	if b, err := f.ReadFile(filepath.Join(top, "app", "templates", "cm.yaml")); err != nil || string(b) != "kind: ConfigMap\n" {
		t.Fatalf("absolute path: %q, %v", b, err)
	}
	if _, err := f.Stat("new.yaml"); !errorsIsNotExist(err) {
		t.Fatalf("new.yaml is only in the index, got %v", err)
	}
	if _, err := f.Stat("../.git"); err != nil {
		t.Fatalf("the top's .git marks the load root: %v", err)
	}
	ents, err := fs.ReadDir(f, "templates")
	if err != nil || len(ents) != 1 || ents[0].Name() != "cm.yaml" {
		t.Fatalf("ReadDir(templates) = %v, %v", ents, err)
	}
	if rp, err := f.RealPath("link.yaml"); err != nil || rp != filepath.Join(top, "app/templates/cm.yaml") {
		t.Fatalf("RealPath(link.yaml) = %q, %v", rp, err)
	}
	if _, err := f.ReadFile("../../outside"); !errorsIsNotExist(err) {
		t.Fatalf("a path outside the work tree: %v", err)
	}
	if after := gitIn(t, top, "status", "--porcelain") + gitIn(t, top, "show-ref"); after != before {
		t.Fatalf("the repository changed:\n%s\nwas\n%s", after, before)
	}
	if _, err := Open(context.Background(), g, "no-such-branch"); err == nil || !strings.Contains(err.Error(), "--base no-such-branch: no such commit") {
		t.Fatalf("unknown ref: %v", err)
	}
}

func errorsIsNotExist(err error) bool { return err != nil && os.IsNotExist(err) }

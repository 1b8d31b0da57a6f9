package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/action/diff"
	"github.com/krender/krender/cmd/internal/handover"
	"github.com/krender/krender/internal/testing/testtool"
)

// gitRepo is a repository in a temporary directory holding the fleet
// golden case's base as its one commit, then the head's files over it,
// uncommitted; it returns the directory.
func gitRepo(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		cmd.Env = []string{"HOME=" + top, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	testtool.CopyTree(t, "../../../testdata/diff/fleet/base/fleet", top)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	testtool.CopyTree(t, "../../../testdata/diff/fleet/profile.yaml", filepath.Join(top, "profile.yaml"))
	testtool.CopyTree(t, "../../../testdata/diff/fleet/templates", filepath.Join(top, "templates"))
	git("add", "profile.yaml") // staged: the index is the head's too, and stays so
	return top
}

func repoState(t *testing.T, top string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{{"status", "--porcelain"}, {"show-ref"}, {"stash", "list"}, {"ls-files", "-s"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		cmd.Env = []string{"HOME=" + top}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(out)
	}
	return b.String()
}

// TestDiffBaseFromGit: --base REF reads the base from git and says what
// the --base-dir golden case says of the same two sides; the work tree,
// index, stash and refs are as they were. An unknown REF is one line, and
// nothing on stdout.
func TestDiffBaseFromGit(t *testing.T) {
	top := gitRepo(t)
	before := repoState(t, top)
	env := withGit(t, noEnv)
	var out, errb bytes.Buffer
	code := runWith([]string{"diff", "--base", "main", "-p", "profile.yaml", "-o", "json", "templates"}, strings.NewReader(""), &out, &errb, inTree(top), env)
	if code != exitFindings {
		t.Fatalf("exit %d, want 1 (changes): %s", code, errb.String())
	}
	var fromGit diff.Result
	if err := json.Unmarshal(out.Bytes(), &fromGit); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../../testdata/diff/fleet-json/stdout.golden")
	if err != nil {
		t.Fatal(err)
	}
	var fromDir diff.Result
	if err := json.Unmarshal(golden, &fromDir); err != nil {
		t.Fatal(err)
	}
	if len(fromGit.Changes) != len(fromDir.Changes) || len(fromGit.Changes) < 10 {
		t.Fatalf("%d changes from git, %d from the directory", len(fromGit.Changes), len(fromDir.Changes))
	}
	for i, c := range fromGit.Changes {
		d := fromDir.Changes[i]
		if c.Kind != d.Kind || c.Name != d.Name || c.Verdict() != d.Verdict() || strings.Join(c.Reasons, "\n") != strings.Join(d.Reasons, "\n") {
			t.Errorf("change %d: from git %+v, from the directory %+v", i, c, d)
		}
	}
	if after := repoState(t, top); after != before {
		t.Errorf("the repository changed:\n%s\nwas\n%s", after, before)
	}
	if bytes.Contains(out.Bytes(), []byte("s3cr3t")) {
		t.Errorf("a Secret's value was printed")
	}

	out.Reset()
	errb.Reset()
	code = runWith([]string{"diff", "--base", "origin/nope", "-p", "profile.yaml", "templates"}, strings.NewReader(""), &out, &errb, inTree(top), env)
	if code != exitError || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "--base origin/nope: no such commit") {
		t.Errorf("unknown REF: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDiffPrintsNoSecret: no format shows a Secret's value, of either side.
func TestDiffPrintsNoSecret(t *testing.T) {
	for _, format := range []string{"text", "markdown", "json"} {
		var out bytes.Buffer
		code := runWith([]string{"diff", "--base-dir", "base/fleet", "-p", "profile.yaml", "-o", format, "templates"}, strings.NewReader(""), &out, io.Discard, inTree("../../../testdata/diff/fleet"), noEnv)
		if code != exitFindings || !strings.Contains(out.String(), "api-token") {
			t.Fatalf("-o %s: exit %d, the Secret's change not shown:\n%s", format, code, out.String())
		}
		if strings.Contains(out.String(), "s3cr3t") {
			t.Errorf("-o %s printed a Secret's value", format)
		}
	}
}

// TestDiffMarkdownFitsAComment: a markdown diff longer than a comment is
// cut, with a note where.
func TestDiffMarkdownFitsAComment(t *testing.T) {
	r := &diff.Result{Base: "main"}
	for i := 0; i < 400; i++ {
		r.Changes = append(r.Changes, diff.Change{Profile: "p.yaml", Tenant: "t", Kind: "Deployment", Name: "web", Change: diff.Modified, Rollout: diff.Rolls, Apply: diff.OK,
			Reasons: []string{"image registry.example.com/web: 2.4.1 → 2.5.0"}, Diff: strings.Repeat("-  image: old\n+  image: new\n", 20)})
	}
	md := diffMarkdown(r, markdownLimit)
	if len(md) > markdownLimit {
		t.Fatalf("%d characters, over %d", len(md), markdownLimit)
	}
	if !strings.Contains(md, "Cut here to fit a comment") {
		t.Errorf("no note where it was cut")
	}
}

// TestDiffHandsOverAtOnce: a krender that finds krender-check runs the
// whole diff in it before reading anything, even a diff the fields alone
// would settle (a base equal to the head); one that does not find it
// diffs alone (TestLeanCheckAgrees).
func TestDiffHandsOverAtOnce(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho krender-check \"$@\"\nexit 7\n"
	if err := os.WriteFile(filepath.Join(bin, handover.Binary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"diff", "--base-dir", ".", "-p", "profile.yaml", "templates"}
	for _, c := range []struct {
		environ Env
		code    int
		out     string
	}{
		{Env{"PATH=" + bin}, 7, "krender-check " + strings.Join(args, " ") + "\n"},
		{Env{"PATH=" + t.TempDir()}, exitOK, "no changes (base .)\n"},
	} {
		var out, errb bytes.Buffer
		h := newHost(nil, nil, args, strings.NewReader(""), &out, &errb, inTree("../../../testdata/diff/fleet"), c.environ.Lookup)
		h.environ = c.environ
		if code := h.execute(); code != c.code || out.String() != c.out {
			t.Errorf("PATH %s: exit %d, stdout %q, stderr %q; want exit %d, stdout %q", c.environ, code, out.String(), errb.String(), c.code, c.out)
		}
	}
}

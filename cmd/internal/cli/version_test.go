package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/validator"
)

func TestMain(m *testing.M) { testtool.Main(m) }

// TestVersionOfLocalBuild runs a real build: `krender version` and
// `krender --version` print the same line, with the commit checked out. Go
// 1.24+ stamps a clean checkout's build with a pseudo-version naming that
// commit, a build without VCS information with "(devel)"; Go stamps no
// revision in a git worktree (its .git is a file), so there the line must
// say "(devel)" and "revision unknown".
func TestVersionOfLocalBuild(t *testing.T) {
	bin := testtool.Krender(t)
	var lines []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("krender %v: %v", args, err)
		}
		lines = append(lines, strings.TrimSpace(string(out)))
	}
	if lines[0] != lines[1] {
		t.Fatalf("version %q and --version %q differ", lines[0], lines[1])
	}
	if !strings.HasPrefix(lines[0], "krender ") || !strings.Contains(lines[0], " revision ") {
		t.Fatalf("version %q: want a local build's version and revision", lines[0])
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("SKIP: not in a git checkout: %v", err)
	}
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !st.IsDir() {
		if !strings.HasPrefix(lines[0], "krender (devel) revision unknown ") {
			t.Fatalf("version %q in a worktree: want (devel) and revision unknown", lines[0])
		}
		return
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(string(head))
	if want := "revision " + rev; !strings.Contains(lines[0], want) {
		t.Fatalf("version %q lacks %q", lines[0], want)
	}
	if v := strings.Fields(lines[0])[1]; v != "(devel)" && !strings.Contains(v, rev[:12]) {
		t.Fatalf("version %q: want (devel) or a pseudo-version of %s", v, rev[:12])
	}
}

// -v is --verbose, as kubectl's -v raises verbosity; --version is long-only.
func TestShortVIsVerbose(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, &out, &errb, filesys.ReadOnly(filesys.OS)); code != 0 || !strings.HasPrefix(out.String(), "krender ") {
		t.Fatalf("--version: exit %d, %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"-v"}, &out, &errb, filesys.ReadOnly(filesys.OS))
	if code != 0 || strings.HasPrefix(out.String(), "krender ") || !strings.Contains(out.String(), "-v, --verbose") ||
		strings.Contains(out.String(), "-v, --version") {
		t.Fatalf("-v: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestSameBuild: krender-check runs what a krender of the same source
// hands it, and where either build does not know its source, what a
// krender that reads the same flags, profiles and rules hands it; it
// refuses another revision or release, and another contract.
func TestSameBuild(t *testing.T) {
	const a, b = "revision 9c5ccef0a5e1d2b3c4d5e6f708192a3b4c5d6e7f", "revision 0706bf3a5e1d2b3c4d5e6f708192a3b4c5d6e7f"
	made := func(source, contract string) build {
		return build{Version: "krender " + source, Source: source, Contract: contract}
	}
	for _, c := range []struct {
		parent, self build
		refused      string // "" accepted
	}{
		{made(a, "c1"), made(a, "c1"), ""},
		{made(a, "c1"), made("", "c1"), ""}, // make build beside go install ./cmd/krender-check
		{made("", "c1"), made(a, "c1"), ""},
		{made("", "c1"), made("", "c1"), ""},              // both -buildvcs=false
		{made("version v1.4.0", "c1"), made(a, "c1"), ""}, // go install @v1.4.0 beside a clone's build
		{made("version v1.4.0", "c1"), made("version v1.4.0", "c1"), ""},
		{made(a, "c1"), made(b, "c1"), "of another revision"}, // a rebuilt helper of another commit
		{made("version v1.4.0", "c1"), made("version v1.4.1", "c1"), "of another version"},
		{made(a, "c1"), made("", "c2"), "read other flags, profiles or rules"},
		{made("", "c1"), made("", "c2"), "read other flags, profiles or rules"},
		{made("version v1.4.0", "c1"), made(a, "c2"), "read other flags, profiles or rules"},
	} {
		err := sameBuild(c.parent, c.self)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%+v run by %+v: refused: %v", c.self, c.parent, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "install both from the same release")):
			t.Errorf("%+v run by %+v: got %v, want refused, %s", c.self, c.parent, err, c.refused)
		}
	}
}

// TestContract: krender and krender-check compute one contract (the
// validator changes no flag); a flag more or a default changed is another.
func TestContract(t *testing.T) {
	lean := contract()
	if lean == "" || lean != contract() {
		t.Fatalf("contract %q is not stable", lean)
	}
	if full := contractOf(newRoot(&host{mask: &masker{}, validator: validator.APIServer{}})); full != lean {
		t.Errorf("with the validator the contract is %s, without %s", full, lean)
	}
	for what, change := range map[string]func(root *cobra.Command){
		"a flag more":       func(root *cobra.Command) { root.PersistentFlags().Bool("new", false, "") },
		"a default changed": func(root *cobra.Command) { sub(t, root, "check").Flags().Lookup("format").DefValue = "json" },
		"a command less":    func(root *cobra.Command) { root.RemoveCommand(sub(t, root, "tenants")) },
	} {
		root := newRoot(&host{mask: &masker{}})
		change(root)
		if contractOf(root) == lean {
			t.Errorf("%s: the same contract", what)
		}
	}
}

func sub(t *testing.T, root *cobra.Command, name string) *cobra.Command {
	t.Helper()
	c, _, err := root.Find([]string{name})
	if err != nil || c.Name() != name {
		t.Fatalf("no command %s: %v", name, err)
	}
	return c
}

// BenchmarkContract: what a hand-over adds to each side's start-up.
func BenchmarkContract(b *testing.B) {
	for b.Loop() {
		contractOf(newRoot(&host{mask: &masker{}}))
	}
}

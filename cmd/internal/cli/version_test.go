package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/cluster/client"
	"github.com/krender/krender/cmd/internal/handover"
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

// TestContractIgnoresValidator: krender and krender-check compute one
// contract for their command trees: the validator and the collector change
// no command or flag.
func TestContractIgnoresValidator(t *testing.T) {
	lean := handover.Contract(contractTree())
	full := handover.Contract(newRoot(&host{mask: &masker{}, validator: validator.APIServer{}, collector: client.Run}))
	if lean == "" || full != lean {
		t.Errorf("with the validator and collector the contract is %s, without %s", full, lean)
	}
}

// BenchmarkContract: what a hand-over adds to each side's start-up.
func BenchmarkContract(b *testing.B) {
	for b.Loop() {
		handover.Contract(contractTree())
	}
}

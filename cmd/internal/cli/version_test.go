package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/internal/testing/testtool"
)

func TestMain(m *testing.M) { testtool.Main(m) }

func TestVersionString(t *testing.T) {
	info := func(version string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/krender/krender", Version: version}, Settings: settings}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "913afa96d32f900d1e4106209af840b84fb4e582"}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{info("v1.4.0"), "krender v1.4.0 go1.26.8"},
		{info("(devel)", rev), "krender (devel) revision 913afa96d32f900d1e4106209af840b84fb4e582 go1.26.8"},
		{info("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "krender (devel) revision 913afa96d32f900d1e4106209af840b84fb4e582 (modified) go1.26.8"},
		{info(""), "krender (devel) revision unknown go1.26.8"},
	} {
		if got := versionString(c.bi, true); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if got := versionString(nil, false); got != "krender (no build information)" {
		t.Errorf("no build info: %q", got)
	}
}

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
	if code := run([]string{"--version"}, &out, &errb, userfs.OS, afero.NewMemMapFs()); code != 0 || !strings.HasPrefix(out.String(), "krender ") {
		t.Fatalf("--version: exit %d, %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"-v"}, &out, &errb, userfs.OS, afero.NewMemMapFs())
	if code != 0 || strings.HasPrefix(out.String(), "krender ") || !strings.Contains(out.String(), "-v, --verbose") ||
		strings.Contains(out.String(), "-v, --version") {
		t.Fatalf("-v: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

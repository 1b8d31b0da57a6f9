package loadroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/filepos"
)

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{
		"": RootOnly, "rootOnly": RootOnly, "LoadRestrictionsRootOnly": RootOnly,
		"none": None, "LoadRestrictionsNone": None,
	} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"all", "off", "LoadRestrictionsAll", " none"} {
		if _, err := ParseMode(in); err == nil || !strings.Contains(err.Error(), "--load-restrictor") {
			t.Errorf("ParseMode(%q): want a usage error naming the flag, got %v", in, err)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		dir, p string
		want   bool
	}{
		{"/r", "/r", true}, {"/r", "/r/a/b", true}, {"/r", "/r/..a", true},
		{"/r", "/", false}, {"/r", "/rx/a", false}, {"/r", "/r/../x", false},
		{".", "a", true}, {".", "../a", false}, {".", "/a", false}, {".", "..", false},
	} {
		if got := within(c.dir, c.p); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.dir, c.p, got)
		}
	}
}

func TestCheckFollowsLinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for _, d := range []string{"root/sub", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(root, "in")); err != nil {
		t.Fatal(err)
	}
	r, err := New(filesys.OS, root, RootOnly, "")
	if err != nil {
		t.Fatal(err)
	}
	for path, ok := range map[string]bool{
		filepath.Join(root, "sub/x.yaml"):         true,  // does not exist: judged by its directory
		filepath.Join(root, "in/x.yaml"):          true,  // a link within the root
		filepath.Join(root, "out/x.yaml"):         false, // a link out of it, to a file not there
		filepath.Join(root, "out"):                false,
		filepath.Join(root, "sub/../../outside"):  false,
		filepath.Join(root, "nope/deeper/x.yaml"): true,
		filepath.Join(base, "outside", "x.yaml"):  false,
	} {
		err := r.Check("fragment", path, filepos.Pos{File: "p.yaml", Line: 1, Col: 1})
		if (err == nil) != ok {
			t.Errorf("Check(%s): %v, want allowed=%v", path, err, ok)
		}
	}
	if off, _ := New(filesys.OS, root, None, ""); off.Check("fragment", "/etc/passwd", filepos.Pos{}) != nil || !off.Off() {
		t.Error("--load-restrictor none still checks")
	}
}

// TestRootHoldingTheProfile: from a working directory in no work tree, the
// root is the work tree holding the profile as its path is written; a
// link on that path inside a work tree leaves the root at that work tree,
// a link above the work tree (the user's own) is followed. From within a
// work tree, or with --root, the profile plays no part.
func TestRootHoldingTheProfile(t *testing.T) {
	base := t.TempDir()
	for d := base; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("the temporary directory lies in a git work tree (%s)", d)
		}
	}
	for _, d := range []string{"repo/.git", "repo/profiles", "repo/sub/.git", "other/.git", "runner/b/.git", "plain", "cwd", "tree/.git", "tree/in"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"repo-link":        "repo",      // the user's own link to a checkout
		"repo/other":       "../other",  // a link committed in the repository to another checkout
		"repo/a":           "../runner", // ... to a directory holding one
		"repo/profiles/in": "../sub",    // ... within the repository
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ cwd, dir, profile, want string }{
		{"cwd", "", "../repo/profiles/p.yaml", "../repo"},
		{"cwd", "", filepath.Join(base, "repo/profiles/p.yaml"), "../repo"},
		{"cwd", "", "../repo/sub/p.yaml", "../repo/sub"}, // a submodule: the nearest work tree
		{"cwd", "", "../repo-link/profiles/p.yaml", "../repo"},
		{"cwd", "", "../repo/other/p.yaml", "../repo"},
		{"cwd", "", "../repo/a/b/p.yaml", "../repo"},
		{"cwd", "", "../repo/profiles/in/p.yaml", "../repo"}, // a link in the repository to its submodule
		{"cwd", "", "../plain/p.yaml", "."},
		{"cwd", "", "", "."},
		{"cwd", "../plain", "../repo/profiles/p.yaml", "../plain"},
		{"tree/in", "", "../../repo/profiles/p.yaml", ".."},
	} {
		r, err := New(filesys.Dir(filepath.Join(base, c.cwd)), c.dir, RootOnly, c.profile)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.String(); got != c.want {
			t.Errorf("in %s, --root %q, -p %s: root %s, want %s", c.cwd, c.dir, c.profile, got, c.want)
		}
	}
}

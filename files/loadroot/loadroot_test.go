package loadroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/files/userfs"
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
	r, err := New(userfs.OS, root, RootOnly)
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
	if off, _ := New(userfs.OS, root, None); off.Check("fragment", "/etc/passwd", filepos.Pos{}) != nil || !off.Off() {
		t.Error("--load-restrictor none still checks")
	}
}

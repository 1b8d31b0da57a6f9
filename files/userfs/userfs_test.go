package userfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
)

// Dir takes the paths os.DirFS refuses (absolute, "..", "./"), and its
// errors name the path as the user typed it.
func TestDirTakesUserPaths(t *testing.T) {
	top := t.TempDir()
	if err := os.MkdirAll(filepath.Join(top, "work", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "p.yaml"), []byte("up"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := filesys.Dir(filepath.Join(top, "work"))
	for _, name := range []string{"../p.yaml", "./sub/../../p.yaml", filepath.Join(top, "p.yaml")} {
		b, err := ReadFile(d, name)
		if err != nil || string(b) != "up" {
			t.Errorf("ReadFile(%q) = %q, %v", name, b, err)
		}
	}
	if _, err := os.DirFS(string(d)).Open("../p.yaml"); err == nil {
		t.Fatal("os.DirFS opened ../p.yaml: the adapter would not be needed")
	}
	t.Chdir(string(d))
	for _, name := range []string{"./missing.yaml", "../missing.yaml", "sub//missing.yaml"} {
		_, err := ReadFile(filesys.OS, name)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != name {
			t.Errorf("error %v does not name %s as typed", err, name)
		}
	}
	real, err := d.RealPath("sub/..")
	if want, _ := filepath.EvalSymlinks(string(d)); err != nil || real != want {
		t.Errorf("RealPath(sub/..) = %q, %v; want %q", real, err, want)
	}
}

// A file system in memory takes paths as users type them too, cleaned.
func TestMemTakesUserPaths(t *testing.T) {
	m := filesys.NewMem(fstest.MapFS{"t/a.yaml": {Data: []byte("a")}})
	for _, name := range []string{"t/a.yaml", "./t/a.yaml", "t//a.yaml", "t/x/../a.yaml"} {
		if b, err := ReadFile(m, name); err != nil || string(b) != "a" {
			t.Errorf("ReadFile(%q) = %q, %v", name, b, err)
		}
		if fi, err := Stat(m, name); err != nil || fi.Size() != 1 {
			t.Errorf("Stat(%q): %v", name, err)
		}
	}
	if es, err := ReadDir(m, "./t"); err != nil || len(es) != 1 {
		t.Errorf("ReadDir(./t) = %v, %v", es, err)
	}
	if p, err := m.RealPath("./t/../../x"); err != nil || p != "../x" {
		t.Errorf("RealPath keeps the leading ..: got %q, %v", p, err)
	}
	if b, err := ReadLimited(m, 0)("./t/a.yaml"); err != nil || string(b) != "a" {
		t.Errorf("ReadLimited(0) = %q, %v; want one byte past the limit", b, err)
	}
}

// TestAbs: a path is made absolute from the file system's own working
// directory, not the process's, so that a file system standing for another
// directory keys its paths there; one in memory, whose working directory
// is ".", keys them cleaned.
func TestAbs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		fsys filesys.Reader
		p    string
		want string
	}{
		{filesys.Dir(dir), "profiles/../a.yaml", filepath.Join(dir, "a.yaml")},
		{filesys.Dir(dir), "/etc/x/../y", "/etc/y"},
		{&filesys.Mem{}, "./profiles//a.yaml", "profiles/a.yaml"},
		{&filesys.Mem{}, "../a.yaml", "../a.yaml"},
	} {
		got, err := Abs(c.fsys, c.p)
		if err != nil || got != c.want {
			t.Errorf("Abs(%T, %q) = %q, %v; want %q", c.fsys, c.p, got, err, c.want)
		}
	}
}

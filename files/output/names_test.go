package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/manifest"
)

// Whatever an object is called, its file is one name inside DIR (or the
// tenant's directory), short enough for any file system.
func TestObjectFileStaysInsideDir(t *testing.T) {
	for _, name := range []string{"../../etc/passwd", "..", ".", "", "/abs", "a/../../b", `..\..\win`, strings.Repeat("x", 600), "ünï\x00"} {
		objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")))
		if err != nil {
			t.Fatal(err)
		}
		manifest.Lookup(objs[0].Node, "metadata", "name").Value = name
		for _, tenant := range []string{"", "t1"} {
			f := ObjectFile(tenant, objs[0])
			base := filepath.Base(f)
			if filepath.IsAbs(f) || strings.Contains(base, "/") || base == ".." || len(base) > maxFileName ||
				!strings.HasPrefix(filepath.Join("out", f), "out"+string(os.PathSeparator)) || filepath.Dir(f) != filepath.Clean(filepath.Join(tenant, ".")) {
				t.Errorf("name %q, tenant %q: file %q", name, tenant, f)
			}
		}
	}
}

// -o DIR replaces DIR whole; a symbolic link or a file there is refused
// and left as it was.
func TestOutputDirMustBeADirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link, file := filepath.Join(dir, "out"), filepath.Join(dir, "file")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{link, file} {
		err := (Writer{FS: filesys.OS}).replaceDirWith(d, func(string) error { t.Fatal("filled"); return nil })
		if err == nil || !strings.Contains(err.Error(), "the output directory is a") {
			t.Errorf("%s: %v", d, err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d entries in the parent, want the 3 it had", len(entries))
	}
}

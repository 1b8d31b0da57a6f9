package filesys

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"syscall"
	"testing"
)

// both runs a test on the real file system, in a directory of its own, and
// in memory: Mem is only worth having if it behaves as Dir does.
func both(t *testing.T, f func(t *testing.T, fsys FileSystem)) {
	t.Run("Dir", func(t *testing.T) { f(t, Dir(t.TempDir())) })
	t.Run("Mem", func(t *testing.T) { f(t, &Mem{}) })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteThenRead(t *testing.T) {
	both(t, func(t *testing.T, fsys FileSystem) {
		if err := fsys.WriteFile("a/b.yaml", []byte("x"), 0o644); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("writing into a missing directory: %v, want fs.ErrNotExist", err)
		}
		must(t, fsys.MkdirAll("a/c", 0o755))
		must(t, fsys.WriteFile("a/b.yaml", []byte("x: 1\n"), 0o644))
		must(t, fsys.WriteFile("a/c/d.yaml", []byte("y: 2\n"), 0o644))
		ents, err := fsys.ReadDir("a")
		must(t, err)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if want := []string{"b.yaml", "c"}; !slices.Equal(names, want) {
			t.Fatalf("ReadDir(a) = %q, want %q", names, want)
		}
		if b, err := fsys.ReadFile("./a/../a/b.yaml"); err != nil || string(b) != "x: 1\n" {
			t.Fatalf("ReadFile = %q, %v", b, err)
		}
		if fi, err := fsys.Lstat("a/c"); err != nil || !fi.IsDir() {
			t.Fatalf("Lstat(a/c) = %v, %v; want a directory", fi, err)
		}
	})
}

// TestSwap is how the output replaces a directory: a staging directory
// filled, the old one renamed away, the new one renamed in, the old removed.
func TestSwap(t *testing.T) {
	both(t, func(t *testing.T, fsys FileSystem) {
		must(t, fsys.MkdirAll("out", 0o755))
		must(t, fsys.WriteFile("out/old.yaml", []byte("old"), 0o644))
		tmp, err := fsys.MkdirTemp(".", ".out.new-*")
		must(t, err)
		must(t, fsys.Chmod(tmp, 0o755))
		if fi, err := fsys.Stat(tmp); err != nil || fi.Mode() != fs.ModeDir|0o755 {
			t.Fatalf("after Chmod %s is %v (%v), want %v", tmp, fi.Mode(), err, fs.ModeDir|0o755)
		}
		must(t, fsys.WriteFile(tmp+"/new.yaml", []byte("new"), 0o644))
		if err := fsys.Remove("out"); err == nil {
			t.Fatal("Remove of a directory that holds a file succeeded")
		}
		if err := fsys.Rename(tmp, "out"); err == nil {
			t.Fatal("Rename onto a directory that holds a file succeeded")
		}
		must(t, fsys.Rename("out", ".out.old"))
		must(t, fsys.Rename(tmp, "out"))
		must(t, fsys.RemoveAll(".out.old"))
		var got []string
		must(t, Walk(fsys, ".", func(p string, fi fs.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				got = append(got, p)
			}
			return err
		}))
		if want := []string{"out/new.yaml"}; !slices.Equal(got, want) {
			t.Fatalf("after the swap the tree holds %q, want %q", got, want)
		}
		must(t, fsys.Remove("out/new.yaml"))
		must(t, fsys.Remove("out"))
		if _, err := fsys.Stat("out"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Stat after Remove: %v, want fs.ErrNotExist", err)
		}
	})
}

// TestSpool is how a large stream is held: written to a temporary file,
// read back from its start.
func TestSpool(t *testing.T) {
	both(t, func(t *testing.T, fsys FileSystem) {
		must(t, fsys.MkdirAll("spool", 0o755))
		f, err := fsys.CreateTemp("spool", "krender-*.yaml")
		must(t, err)
		for _, s := range []string{"a: 1\n", "b: 2\n"} {
			if _, err := io.WriteString(f, s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(f)
		must(t, err)
		must(t, f.Close())
		if string(b) != "a: 1\nb: 2\n" {
			t.Fatalf("read back %q", b)
		}
		must(t, fsys.Remove(f.Name()))
		if _, err := fsys.CreateTemp("missing", "x-*"); err == nil {
			t.Fatal("CreateTemp in a missing directory succeeded")
		}
	})
}

func TestGetwd(t *testing.T) {
	dir := t.TempDir()
	real, err := Dir(dir).RealPath(".")
	must(t, err)
	wd, err := Dir(dir).Getwd()
	must(t, err)
	if wdReal, err := Dir(dir).RealPath(wd); err != nil || wdReal != real {
		t.Fatalf("Dir(%s).Getwd() = %s, which leads to %s (%v); want %s", dir, wd, wdReal, err, real)
	}
	if wd, err := (&Mem{}).Getwd(); err != nil || wd != "." {
		t.Fatalf("Mem.Getwd() = %q, %v; want \".\"", wd, err)
	}
}

func TestReadOnly(t *testing.T) {
	mem := &Mem{}
	must(t, mem.WriteFile("a.yaml", []byte("a"), 0o644))
	ro := ReadOnly(mem)
	if b, err := ro.ReadFile("a.yaml"); err != nil || string(b) != "a" {
		t.Fatalf("ReadFile through ReadOnly = %q, %v", b, err)
	}
	for name, err := range map[string]error{
		"MkdirAll":  ro.MkdirAll("d", 0o755),
		"WriteFile": ro.WriteFile("b.yaml", nil, 0o644),
		"Chmod":     ro.Chmod("a.yaml", 0o600),
		"Rename":    ro.Rename("a.yaml", "b.yaml"),
		"Remove":    ro.Remove("a.yaml"),
		"RemoveAll": ro.RemoveAll("a.yaml"),
	} {
		if !errors.Is(err, syscall.EPERM) {
			t.Errorf("%s through ReadOnly: %v, want EPERM", name, err)
		}
	}
	if _, err := ro.MkdirTemp(".", "x-*"); !errors.Is(err, syscall.EPERM) {
		t.Errorf("MkdirTemp through ReadOnly: %v, want EPERM", err)
	}
	if _, err := ro.CreateTemp(".", "x-*"); !errors.Is(err, syscall.EPERM) {
		t.Errorf("CreateTemp through ReadOnly: %v, want EPERM", err)
	}
	if b, err := mem.ReadFile("a.yaml"); err != nil || string(b) != "a" {
		t.Fatalf("after the refused writes a.yaml is %q, %v", b, err)
	}
}

package output

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/render"
)

const (
	threeTenants = "vars: {V: one}\ntenants:\n  t1:\n    vars: {X: a}\n  t2:\n    vars: {X: b}\n  t3:\n    vars: {X: c}\n"
	twoMaps      = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: \"${X}\"}\ndata:\n  v: ${V}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
)

// engine builds an engine over files held in memory.
func engine(t testing.TB, files map[string]string, set ...string) *render.Engine {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return mustEngine(t, filesys.NewMem(fsys), engineOptions{Profile: "p.yaml", Paths: []string{"a.yaml"}, Set: set})
}

// tree is every file and directory under root: contents, and "/" for a directory.
func tree(t *testing.T, fsys filesys.FileSystem, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filesys.Walk(fsys, root, func(p string, info fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			out[filepath.ToSlash(p)] = "/"
			return nil
		}
		b, err := fsys.ReadFile(p)
		out[filepath.ToSlash(p)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// noTemporaries fails when a temporary sibling of dir is left in parent.
func noTemporaries(t *testing.T, fsys filesys.FileSystem, parent, dir string) {
	t.Helper()
	ents, err := fsys.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), "."+dir+".") {
			t.Errorf("temporary %s left behind", ent.Name())
		}
	}
}

// writeAll writes name, and the directories above it.
func writeAll(fsys filesys.FileSystem, name string, data []byte, perm os.FileMode) error {
	if err := fsys.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return fsys.WriteFile(name, data, perm)
}

// A directory written before, with a file no render produces, to be replaced.
func oldDir(t *testing.T, fsys filesys.FileSystem) map[string]string {
	t.Helper()
	for name, text := range map[string]string{
		"out/t1/configmap-a.yaml": "old a\n", "out/t1/configmap-old.yaml": "gone\n",
		"out/" + Marker: "t1/configmap-a.yaml\nt1/configmap-old.yaml\n",
	} {
		if err := fsys.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeAll(fsys, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tree(t, fsys, "out")
}

func TestWriteDirReplacesTheDirectory(t *testing.T) {
	mem := &filesys.Mem{}
	oldDir(t, mem)
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	if _, err := (Writer{FS: mem}).WriteDir(e, "out"); err != nil {
		t.Fatal(err)
	}
	files, order, _, err := Files(e)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"out": "/", "out/" + Marker: markerHeader}
	for _, name := range []string{"t1/configmap-a.yaml", "t1/configmap-b.yaml", "t2/configmap-a.yaml", "t2/configmap-b.yaml", "t3/configmap-a.yaml", "t3/configmap-b.yaml"} {
		want["out/"+Marker] += name + "\n"
	}
	for _, name := range order {
		want["out/"+filepath.Dir(name)] = "/"
		want["out/"+name] = string(files[name])
	}
	if got := tree(t, mem, "out"); !reflect.DeepEqual(got, want) {
		t.Fatalf("out holds\n%v\nwant\n%v", got, want)
	}
	if len(order) != 6 || !strings.Contains(want["out/t2/configmap-a.yaml"], `{x: "b"}`) {
		t.Fatalf("unexpected render: %v", order)
	}
	info, err := mem.Stat("out")
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("out: %v %v, want mode 0755", info, err)
	}
	noTemporaries(t, mem, ".", "out")
}

// creates counts the files opened for writing, so that a test can prove a
// failure came after some were written.
type creates struct {
	filesys.FileSystem
	n int
}

func (c *creates) WriteFile(name string, data []byte, perm os.FileMode) error {
	c.n++
	return c.FileSystem.WriteFile(name, data, perm)
}

func (c *creates) CreateTemp(dir, pattern string) (filesys.File, error) {
	c.n++
	return c.FileSystem.CreateTemp(dir, pattern)
}

func TestWriteDirFailureLeavesDirUntouched(t *testing.T) {
	mem := &filesys.Mem{}
	before := oldDir(t, mem)
	// t3 does not define X: it fails after t1 and t2 were written.
	prof := strings.Replace(threeTenants, "vars: {X: c}", "vars: {Y: c}", 1)
	e := engine(t, map[string]string{"p.yaml": prof, "a.yaml": twoMaps})
	fsys := &creates{FileSystem: mem}
	_, err := (Writer{FS: fsys}).WriteDir(e, "out")
	if err == nil || !strings.Contains(err.Error(), "(tenant t3)") {
		t.Fatalf("want t3's error, got %v", err)
	}
	if fsys.n != 4 {
		t.Fatalf("%d files written before the failure, want t1's and t2's 4", fsys.n)
	}
	if after := tree(t, mem, "out"); !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed render changed out:\n%v\nwas\n%v", after, before)
	}
	noTemporaries(t, mem, ".", "out")
}

// renameFails fails the renames that match.
type renameFails struct {
	filesys.FileSystem
	fail func(from, to string) bool
}

func (r renameFails) Rename(from, to string) error {
	if r.fail(from, to) {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EXDEV}
	}
	return r.FileSystem.Rename(from, to)
}

func TestWriteDirFailedSwapRestoresOldDir(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	for name, fail := range map[string]func(from, to string) bool{
		"new into place": func(from, to string) bool { return to == "out" && !strings.HasSuffix(from, ".old") },
		"old aside":      func(from, to string) bool { return from == "out" },
	} {
		t.Run(name, func(t *testing.T) {
			mem := &filesys.Mem{}
			before := oldDir(t, mem)
			_, err := (Writer{FS: renameFails{mem, fail}}).WriteDir(e, "out")
			if !errors.Is(err, syscall.EXDEV) {
				t.Fatalf("want the rename's error, got %v", err)
			}
			if after := tree(t, mem, "out"); !reflect.DeepEqual(after, before) {
				t.Fatalf("out is not the old directory:\n%v\nwas\n%v", after, before)
			}
			noTemporaries(t, mem, ".", "out")
		})
	}
}

// full fails every write once budget bytes have been written, like a disk
// filling up.
type full struct {
	filesys.FileSystem
	budget *int
}

func (f full) WriteFile(name string, data []byte, perm os.FileMode) error {
	if len(data) > *f.budget {
		return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
	}
	*f.budget -= len(data)
	return f.FileSystem.WriteFile(name, data, perm)
}

func TestWriteDirWriteErrorSurfaces(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	mem := &filesys.Mem{}
	before := oldDir(t, mem)
	budget := 150 // a few files' worth
	_, err := (Writer{FS: full{mem, &budget}}).WriteDir(e, "out")
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("want the write's error, got %v", err)
	}
	if after := tree(t, mem, "out"); !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed write changed out:\n%v\nwas\n%v", after, before)
	}
	noTemporaries(t, mem, ".", "out")

	_, err = (Writer{FS: filesys.ReadOnly(mem)}).WriteDir(e, "out")
	if !errors.Is(err, syscall.EPERM) {
		t.Fatalf("read-only file system: got %v", err)
	}
}

// --check compares with a directory -o wrote, --update rewrites it.
func TestCompareAndUpdate(t *testing.T) {
	mem := &filesys.Mem{}
	w := Writer{FS: mem}
	files := map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps}
	one, two := engine(t, files), engine(t, files, "V=two")

	d, _, err := w.Compare(one, "golden")
	if err != nil || !d.NoDir || d.Empty() || len(d.Missing) != 6 {
		t.Fatalf("no directory: %+v, %v", d, err)
	}
	if _, err := w.WriteDir(one, "golden"); err != nil { // --update
		t.Fatal(err)
	}
	if d, _, err = w.Compare(one, "golden"); err != nil || !d.Empty() {
		t.Fatalf("just written: %+v, %v", d, err)
	}

	d, _, err = w.Compare(two, "golden")
	if err != nil || d.Empty() || len(d.Changed) != 3 || d.Changed[0] != "t1/configmap-a.yaml" {
		t.Fatalf("V changed: %+v, %v", d, err)
	}
	var out strings.Builder
	d.Write(&out, "golden", false)
	wantPatch := "--- golden/t1/configmap-a.yaml\n+++ golden/t1/configmap-a.yaml\trendered from a.yaml\n"
	if !strings.Contains(out.String(), wantPatch) || !strings.Contains(out.String(), "-  v: one\n+  v: two\n") ||
		!strings.HasSuffix(out.String(), "3 changed, 0 missing, 0 extra\n") {
		t.Fatalf("diff:\n%s", out.String())
	}

	if err := mem.Remove("golden/t2/configmap-b.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(mem, "golden/t2/configmap-old.yaml", []byte("kind: ConfigMap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(mem, "golden/README", []byte("not yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _, err = w.Compare(one, "golden")
	if err != nil || len(d.Changed) != 0 || !reflect.DeepEqual(d.Missing, []string{"t2/configmap-b.yaml"}) ||
		!reflect.DeepEqual(d.Extra, []string{"t2/configmap-old.yaml"}) {
		t.Fatalf("missing and extra: %+v, %v", d, err)
	}

	// --update replaces only what krender wrote: the README and the
	// hand-written file stop it.
	before := tree(t, mem, "golden")
	if _, err := w.WriteDir(two, "golden"); err == nil || !strings.Contains(err.Error(), "golden: the output directory holds README (and 1 more), which krender did not write") {
		t.Fatalf("--update over a README: %v", err)
	}
	if after := tree(t, mem, "golden"); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused --update changed golden:\n%v\nwas\n%v", after, before)
	}
	for _, f := range []string{"golden/README", "golden/t2/configmap-old.yaml"} {
		if err := mem.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.WriteDir(two, "golden"); err != nil { // --update again
		t.Fatal(err)
	}
	if d, _, err = w.Compare(two, "golden"); err != nil || !d.Empty() {
		t.Fatalf("after --update: %+v, %v", d, err)
	}
	noTemporaries(t, mem, ".", "golden")
}

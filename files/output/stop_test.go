package output

import (
	"bytes"
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
)

// errStop stands for the CLI's cause of a cancelled write (a signal).
var errStop = errors.New("stopped")

// cancelAfter cancels with errStop once n files have been created.
type cancelAfter struct {
	filesys.FileSystem
	n      int
	cancel context.CancelCauseFunc
}

func (c *cancelAfter) created() {
	if c.n--; c.n == 0 {
		c.cancel(errStop)
	}
}

func (c *cancelAfter) WriteFile(name string, data []byte, perm os.FileMode) error {
	c.created()
	return c.FileSystem.WriteFile(name, data, perm)
}

func (c *cancelAfter) CreateTemp(dir, pattern string) (filesys.File, error) {
	c.created()
	return c.FileSystem.CreateTemp(dir, pattern)
}

func TestStoppedWriteDirLeavesDirAndNoTemporaries(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	mem := &filesys.Mem{}
	before := oldDir(t, mem)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	fsys := &cancelAfter{FileSystem: mem, n: 2, cancel: cancel}
	_, err := (Writer{FS: fsys, Context: ctx}).WriteDir(e, "out")
	if !errors.Is(err, errStop) {
		t.Fatalf("want the cause of the cancellation, got %v", err)
	}
	if fsys.n != 0 {
		t.Fatalf("%d more files written after the cancellation, want none", -fsys.n)
	}
	if after := tree(t, mem, "out"); !reflect.DeepEqual(after, before) {
		t.Fatalf("a stopped write changed out:\n%v\nwas\n%v", after, before)
	}
	noTemporaries(t, mem, ".", "out")
}

func TestStoppedBeforeWriteDirCreatesNothing(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	mem := &filesys.Mem{}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	fsys := &creates{FileSystem: mem}
	if _, err := (Writer{FS: fsys, Context: ctx}).WriteDir(e, "out"); !errors.Is(err, errStop) {
		t.Fatalf("want the cause of the cancellation, got %v", err)
	}
	if ents, _ := mem.ReadDir("."); fsys.n != 0 || len(ents) != 0 {
		t.Fatalf("a write stopped before it began created %d files and left %v", fsys.n, ents)
	}
}

func TestStoppedStreamWritesNothingAndRemovesItsSpool(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	mem := &filesys.Mem{}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// The spool spills to a file at once; the cancellation comes with it.
	fsys := &cancelAfter{FileSystem: mem, n: 1, cancel: cancel}
	var out bytes.Buffer
	_, err := (Writer{FS: fsys, SpoolMemory: 1, Context: ctx}).WriteStream(e, &out)
	if !errors.Is(err, errStop) {
		t.Fatalf("want the cause of the cancellation, got %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("a stopped stream wrote %q", out.String())
	}
	left := tree(t, mem, os.TempDir())
	for name := range left {
		if strings.Contains(name, "krender-") {
			t.Fatalf("spool %s left behind", name)
		}
	}
}

func TestStoppedCompare(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	if _, _, err := (Writer{FS: &filesys.Mem{}, Context: ctx}).Compare(e, "out"); !errors.Is(err, errStop) {
		t.Fatalf("want the cause of the cancellation, got %v", err)
	}
}

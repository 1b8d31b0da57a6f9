package output

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/krender/krender/action"
	"github.com/krender/krender/internal/fleetgen"
)

// temporaries lists the spool files in the temporary directory.
func temporaries(t *testing.T, fsys afero.Fs) []string {
	t.Helper()
	ents, err := afero.ReadDir(fsys, os.TempDir())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), "krender-") {
			names = append(names, ent.Name())
		}
	}
	return names
}

func TestSpoolSpillsPastItsLimit(t *testing.T) {
	mem := afero.NewMemMapFs()
	sp := &spool{fs: mem, limit: 100}
	var want bytes.Buffer
	for i := range 40 {
		chunk := fmt.Sprintf("line %d of the stream\n", i)
		want.WriteString(chunk)
		if _, err := sp.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
		if spilled := want.Len() > 100; spilled != (sp.file != nil) {
			t.Fatalf("after %d bytes: spilled %v, want %v", want.Len(), sp.file != nil, spilled)
		}
	}
	if sp.held != 0 || len(sp.chunks) != 0 {
		t.Fatalf("%d bytes still held in memory after the spill", sp.held)
	}
	if n := len(temporaries(t, mem)); n != 1 {
		t.Fatalf("%d spool files, want 1", n)
	}
	var got bytes.Buffer
	if err := sp.CopyTo(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("CopyTo gave\n%q\nwant\n%q", got.String(), want.String())
	}
	sp.Close()
	if names := temporaries(t, mem); len(names) > 0 {
		t.Fatalf("spool files left after Close: %v", names)
	}
}

func TestStreamIsTheSameWhenSpilled(t *testing.T) {
	e := fleetEngine(t, fleetgen.Fleet{Apps: 2, Tenants: 9}, action.Options{})
	var want bytes.Buffer
	if _, err := (Writer{FS: afero.NewReadOnlyFs(afero.NewMemMapFs())}).WriteStream(e, &want); err != nil {
		t.Fatal(err) // held in memory: the read-only file system is never asked
	}
	for _, limit := range []int{1, 4096, want.Len() - 1, want.Len()} {
		mem := afero.NewMemMapFs()
		var got bytes.Buffer
		if _, err := (Writer{FS: mem, SpoolMemory: limit}).WriteStream(e, &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("limit %d: the stream differs from one held in memory", limit)
		}
		if names := temporaries(t, mem); len(names) > 0 {
			t.Fatalf("limit %d: spool files left behind: %v", limit, names)
		}
	}
}

// A stream that cannot be spooled fails whole: nothing reaches the writer.
func TestStreamWriteErrorSurfaces(t *testing.T) {
	e := fleetEngine(t, fleetgen.Fleet{Apps: 2, Tenants: 9}, action.Options{})
	for name, fsys := range map[string]afero.Fs{
		"cannot create": afero.NewReadOnlyFs(afero.NewMemMapFs()),
		"disk full":     full{afero.NewMemMapFs(), new(5000)},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := (Writer{FS: fsys, SpoolMemory: 2000}).WriteStream(e, &out)
			if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("want the file system's error, got %v", err)
			}
			if out.Len() > 0 {
				t.Fatalf("%d bytes reached the writer", out.Len())
			}
		})
	}
}

package action

import (
	"runtime/debug"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/render"
)

// fleetEngine builds an engine over a generated fleet held in memory.
func fleetEngine(t testing.TB, f fleetgen.Fleet, o Options) *render.Engine {
	t.Helper()
	fsys := f.FS()
	o.Profile = fleetgen.Profile
	o.Paths = []string{fleetgen.AppsDir}
	e, err := Engine(filesys.NewMem(fsys), o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The memory limit is the caller's: building an engine leaves the
// process's limit alone, and with Options.MemoryLimit the action reports
// the limit for what it has read, then the one the engine's units need.
func TestMemoryLimitIsTheCallers(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	f := fleetgen.Fleet{Apps: 3, Tenants: 4}
	fleetEngine(t, f, Options{})
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("building an engine set the memory limit from %d to %d", before, got)
	}
	var told []int64
	e := fleetEngine(t, f, Options{MemoryLimit: func(n int64) { told = append(told, n) }})
	if debug.SetMemoryLimit(-1) != before {
		t.Fatal("the action set the memory limit itself")
	}
	if len(told) < 2 {
		t.Fatalf("told %v: want a limit per file read, then the engine's", told)
	}
	for i, n := range told[:len(told)-1] {
		if n < render.ParseMemoryLimit(0) || i > 0 && n < told[i-1] {
			t.Fatalf("told %v: the limits while reading must grow from %d", told, render.ParseMemoryLimit(0))
		}
	}
	if last := told[len(told)-1]; last != e.MemoryLimit() {
		t.Fatalf("last limit told %d, want the engine's %d", last, e.MemoryLimit())
	}
}

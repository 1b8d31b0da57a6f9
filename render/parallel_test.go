package render

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
)

// fleetEngine builds an engine over a generated fleet held in memory.
func fleetEngine(t testing.TB, f fleetgen.Fleet, opts Options) *Engine {
	t.Helper()
	fsys := f.FS()
	opts.Profile = fleetgen.Profile
	opts.Paths = []string{fleetgen.AppsDir}
	e, err := load(filesys.NewMem(fsys), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestInOrderReportsEarliestErrorNotFirstInTime(t *testing.T) {
	fifthDone := make(chan struct{})
	var emitted []int
	err := inOrder(8, 3, 6,
		func(i int) (int, error) {
			switch i {
			case 3:
				<-fifthDone // fail only after index 5 has failed
				return 0, errors.New("three")
			case 5:
				defer close(fifthDone)
				return 0, errors.New("five")
			}
			return i, nil
		},
		func(i, v int) error {
			emitted = append(emitted, v)
			return nil
		})
	if err == nil || err.Error() != "three" {
		t.Fatalf("got %v, want the error of index 3", err)
	}
	if fmt.Sprint(emitted) != "[0 1 2]" {
		t.Fatalf("emitted %v, want [0 1 2]", emitted)
	}
}

func TestInOrderHoldsAtMostWindow(t *testing.T) {
	for _, c := range []struct{ n, workers, window int }{{100, 4, 4}, {100, 4, 9}, {50, 1, 1}, {3, 8, 16}} {
		var inFlight, peak atomic.Int64
		var mu sync.Mutex
		next := 0
		err := inOrder(c.n, c.workers, c.window,
			func(i int) (int, error) {
				n := inFlight.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				return i, nil
			},
			func(i, v int) error {
				mu.Lock()
				defer mu.Unlock()
				if i != next || v != i {
					return fmt.Errorf("emitted %d (value %d), want %d", i, v, next)
				}
				next++
				inFlight.Add(-1)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if next != c.n {
			t.Fatalf("%+v: emitted %d of %d", c, next, c.n)
		}
		if p := peak.Load(); p > int64(max(c.window, c.workers)) {
			t.Fatalf("%+v: %d results held at once", c, p)
		}
	}
}

func TestInOrderStopsAfterEmitError(t *testing.T) {
	var started atomic.Int64
	err := inOrder(1000, 2, 4,
		func(i int) (int, error) { started.Add(1); return i, nil },
		func(i, v int) error {
			if i == 10 {
				return errors.New("disk full")
			}
			return nil
		})
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("got %v", err)
	}
	if n := started.Load(); n > 10+4 {
		t.Fatalf("%d units started after the failure at 10 with a window of 4", n)
	}
}

// The soft memory limit follows the units held at once: it grows with the
// workers and with the templates, and a two-CPU run keeps about the 150 MiB
// the limit was before it followed them.
func TestMemoryLimitFollowsUnitsHeldAtOnce(t *testing.T) {
	small := fleetEngine(t, fleetgen.Fleet{Apps: 20, Tenants: 4}, Options{})
	big := fleetEngine(t, fleetgen.Fleet{Apps: 80, Tenants: 4}, Options{})
	limit := func(e *Engine, workers int) int64 { e.Workers = workers; return e.MemoryLimit() }
	two, many := limit(small, 2), limit(small, 64)
	perUnit := (many - two) / int64(small.window()-4)
	if perUnit <= 0 || many-two != perUnit*int64(small.window()-4) {
		t.Fatalf("limit does not grow by one unit's share per unit held: %d at 2 workers, %d at 64", two, many)
	}
	if limit(big, 2) <= two {
		t.Fatalf("four times the templates, same limit %d", two)
	}
	if two < 128<<20 || two > 200<<20 {
		t.Fatalf("two workers on the bench fleet: %d MiB, want about 150", two>>20)
	}
}

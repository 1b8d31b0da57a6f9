package render

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/krender/krender/internal/fleetgen"
	"github.com/krender/krender/manifest"
)

// fleetEngine builds an engine over a generated fleet held in memory.
func fleetEngine(t testing.TB, f fleetgen.Fleet, opts Options) *Engine {
	t.Helper()
	fsys := MapFS{}
	for name, text := range f.Files() {
		fsys[name] = &fstest.MapFile{Data: text}
	}
	opts.Profile = fleetgen.Profile
	opts.Paths = []string{fleetgen.AppsDir}
	e, err := New(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// serialStream is the output as one encoder writes it when rendering the
// units one after another: what the parallel writer must reproduce.
func serialStream(t *testing.T, e *Engine) []byte {
	t.Helper()
	var all []*manifest.Object
	for _, u := range e.Units {
		s, err := e.Render(u)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s.Objects...)
	}
	b, err := manifest.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParallelOutputMatchesSerial(t *testing.T) {
	f := fleetgen.Fleet{Apps: 4, Tenants: 37}
	e := fleetEngine(t, f, Options{})
	want := serialStream(t, e)
	if n := bytes.Count(want, []byte("\nkind: ")) + bytes.Count(want[:6], []byte("kind: ")); n == 0 {
		t.Fatal("the generated fleet rendered no objects")
	}
	var wantFiles map[string][]byte
	var wantOrder []string
	for _, workers := range []int{1, 2, 3, 8, 64} {
		e.Workers = workers
		sameStream(t, e, want)
		files, order, _, err := e.Files()
		if err != nil {
			t.Fatal(err)
		}
		if len(order) != f.Objects() {
			t.Fatalf("%d workers: %d files, want %d", workers, len(order), f.Objects())
		}
		if wantFiles == nil {
			wantFiles, wantOrder = files, order
			continue
		}
		if strings.Join(order, "\n") != strings.Join(wantOrder, "\n") {
			t.Fatalf("%d workers: file order differs from 1 worker", workers)
		}
		for name, text := range wantFiles {
			if !bytes.Equal(files[name], text) {
				t.Fatalf("%d workers: %s differs from 1 worker", workers, name)
			}
		}
	}
}

// A document whose leading comments hold its own `---` must not get a
// second one where two tenants' parts of the stream meet.
func TestStreamJoinsUnitsLikeOneEncoder(t *testing.T) {
	fsys := MapFS{
		"p.yaml":   {Data: []byte("tenants:\n  a: {}\n  b: {}\n  c: {}\n")},
		"one.yaml": {Data: []byte("---\n# first\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n# second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n")},
	}
	e, err := New(fsys, Options{Profile: "p.yaml", Paths: []string{"one.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	want := serialStream(t, e)
	for _, workers := range []int{1, 3} {
		e.Workers = workers
		sameStream(t, e, want)
	}
}

// sameStream requires the engine's stream, with its current workers, to be want.
func sameStream(t *testing.T, e *Engine, want []byte) {
	t.Helper()
	var out bytes.Buffer
	if _, err := e.WriteStream(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("%d workers: stream differs from a serial render:\n%s", e.Workers,
			udiff.Unified("serial", "parallel", string(want), out.String()))
	}
}

func TestFirstFailingTenantInOrderIsReported(t *testing.T) {
	f := fleetgen.Fleet{Apps: 2, Tenants: 30}
	files := f.Files()
	// EXTRA is defined for every tenant but the 5th and the 23rd.
	prof := strings.Replace(string(files[fleetgen.Profile]), "PUBLIC_HOST:", "EXTRA: x, PUBLIC_HOST:", -1)
	prof = strings.Replace(prof, "EXTRA: x, PUBLIC_HOST: tenant-0005", "PUBLIC_HOST: tenant-0005", 1)
	prof = strings.Replace(prof, "EXTRA: x, PUBLIC_HOST: tenant-0023", "PUBLIC_HOST: tenant-0023", 1)
	files[fleetgen.Profile] = []byte(prof)
	app := "apps/app-02/service.yaml"
	files[app] = append(files[app], []byte("  externalName: ${EXTRA}\n")...)
	fsys := MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: text}
	}
	e, err := New(fsys, Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 7} {
		e.Workers = workers
		var out bytes.Buffer
		_, err := e.WriteStream(&out)
		if err == nil || !strings.Contains(err.Error(), "(tenant tenant-0005)") || strings.Contains(err.Error(), "tenant-0023") {
			t.Fatalf("%d workers: want only tenant-0005's error, got %v", workers, err)
		}
		if !strings.HasPrefix(err.Error(), app+":") {
			t.Fatalf("%d workers: error does not name the template: %v", workers, err)
		}
		if out.Len() != 0 {
			t.Fatalf("%d workers: %d bytes written despite the failure", workers, out.Len())
		}
	}
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
	limit := func(e *Engine, workers int) int64 { e.Workers = workers; return e.memoryLimit() }
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

package output

import (
	"strings"
	"sync"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
)

// recordingFs notes every file it opens.
type recordingFs struct {
	filesys.FileSystem
	opened func(name string)
}

func (r recordingFs) ReadFile(name string) ([]byte, error) {
	r.opened(name)
	return r.FileSystem.ReadFile(name)
}

// TestCompareStreams: --check DIR compares each unit's files as the unit
// is handed on, so memory does not grow with the fleet: the first file of
// DIR is read before the last unit starts rendering, which a comparison
// after the whole render could not do. The engine holds only a few units
// in flight, so with 40 tenants the order is certain.
func TestCompareStreams(t *testing.T) {
	f := fleetgen.Fleet{Apps: 2, Tenants: 40}
	mem := &filesys.Mem{}
	if _, err := (Writer{FS: mem}).WriteDir(fleetEngine(t, f, engineOptions{}), "golden"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	note := func(ev string) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}
	e := fleetEngine(t, f, engineOptions{AfterStage: func(_ string, s *manifest.Set) { note("render " + s.Tenant) }})
	e.Workers = 2
	rec := recordingFs{FileSystem: mem, opened: func(name string) {
		if strings.HasSuffix(name, ".yaml") {
			note("read " + name)
		}
	}}
	d, _, err := (Writer{FS: rec}).Compare(e, "golden")
	if err != nil || !d.Empty() {
		t.Fatalf("compare: %+v, %v", d, err)
	}
	firstRead, lastStart := -1, -1
	started := map[string]bool{}
	for i, ev := range events {
		switch {
		case strings.HasPrefix(ev, "read ") && firstRead < 0:
			firstRead = i
		case strings.HasPrefix(ev, "render ") && !started[ev]:
			started[ev] = true
			lastStart = i
		}
	}
	if len(started) != f.Tenants || firstRead < 0 {
		t.Fatalf("%d tenants rendered, first read at %d: the hooks saw nothing useful", len(started), firstRead)
	}
	if firstRead > lastStart {
		t.Errorf("the first file of DIR was read at event %d, after the last unit started rendering (event %d): the comparison waited for the whole render", firstRead, lastStart)
	}
}

package action

import (
	"testing"
	"testing/fstest"

	"github.com/krender/krender/internal/fleetgen"
	"github.com/krender/krender/render"
)

// fleetEngine builds an engine over a generated fleet held in memory.
func fleetEngine(t testing.TB, f fleetgen.Fleet, o Options) *render.Engine {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range f.Files() {
		fsys[name] = &fstest.MapFile{Data: text}
	}
	o.Profile = fleetgen.Profile
	o.Paths = []string{fleetgen.AppsDir}
	e, err := Engine(fsys, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

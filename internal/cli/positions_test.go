package cli

import (
	"sync"
	"testing"

	"github.com/krender/krender/manifest"
	"github.com/krender/krender/render"
)

// checkPositions holds every stage of every render the test runs, until it
// ends, to manifest.CheckPositions: each node of each object names where in
// a template, fragment or profile it was written, or the stage that made it.
func checkPositions(t *testing.T) {
	t.Helper()
	var mu sync.Mutex
	reported := 0
	render.AfterStage = func(stage string, s *manifest.Set) {
		err := manifest.CheckPositions(s, stage)
		if err == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if reported++; reported <= 3 { // one stage's fault shows in every unit after it
			t.Error(err)
		}
	}
	t.Cleanup(func() { render.AfterStage = nil })
}

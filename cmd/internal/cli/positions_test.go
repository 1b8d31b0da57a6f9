package cli

import (
	"strings"
	"sync"
	"testing"

	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/model/manifest"
)

// positionsChecked is an AfterStage hook that holds every stage of a
// render to manifest.CheckPositions, failing t: each node of each object
// names where in a template, fragment or profile it was written, or the
// stage that made it.
func positionsChecked(t *testing.T) func(string, *manifest.Set) {
	var mu sync.Mutex
	reported := 0
	return func(stage string, s *manifest.Set) {
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
}

// TestCommandsShowEveryStage: render and check hand the hook every
// stage, so runChecked checks what the goldens render.
func TestCommandsShowEveryStage(t *testing.T) {
	for _, cmd := range []string{"render", "check"} {
		var mu sync.Mutex
		stages := map[string]bool{}
		after := func(stage string, _ *manifest.Set) {
			mu.Lock()
			defer mu.Unlock()
			stages[stage] = true
		}
		var out, errb strings.Builder
		execute(validator.APIServer{}, after, []string{cmd, "-p", "profiles/dev.yaml", "templates"}, strings.NewReader(""), &out, &errb, inTree("../../.."), noEnv)
		if len(stages) < 5 {
			t.Errorf("%s: the hook saw %d stages (%v); stderr %s", cmd, len(stages), stages, errb.String())
		}
	}
}

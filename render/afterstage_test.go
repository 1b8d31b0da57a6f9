package render

import (
	"fmt"
	"sync"
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
)

// TestAfterStageSeesEveryStage: the test hook is called once per stage of
// each unit, in pipeline order, and the fleet's objects name a place (or the
// stage that made them) after each.
func TestAfterStageSeesEveryStage(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	after := func(stage string, s *manifest.Set) {
		err := manifest.CheckPositions(s, stage)
		mu.Lock()
		defer mu.Unlock()
		seen[s.Tenant] = append(seen[s.Tenant], stage)
		if err != nil {
			t.Error(err)
		}
	}
	e := fleetEngine(t, fleetgen.Fleet{Apps: 4, Tenants: 2}, Options{AfterStage: after})
	if _, err := e.Each(func(*manifest.Set) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, st := range e.stages {
		want = append(want, fmt.Sprintf("%T", st))
	}
	if len(seen) != len(e.Units) {
		t.Fatalf("saw %d units, want %d", len(seen), len(e.Units))
	}
	for tenant, got := range seen {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("tenant %s: stages %v, want %v", tenant, got, want)
		}
	}
}

package fieldcheck_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v4"
	kjson "sigs.k8s.io/json"

	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/model/manifest"
)

// sameValue checks Value's promise on o: where it answers, it is what the
// JSON round trip and the custom-resource decoder give. It reports
// whether Value answered.
func sameValue(t testing.TB, name, what string, o *manifest.Object) bool {
	t.Helper()
	if err := o.CheckNodes(); err != nil {
		return false
	}
	v, ok := fieldcheck.Value(o.Node)
	if !ok {
		return false
	}
	js, p := fieldcheck.JSON(o)
	if p != nil {
		t.Errorf("%s (%s): Value answers, JSON fails: %s", name, what, p.Msg)
		return true
	}
	var want any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &want); err != nil {
		t.Errorf("%s (%s): Value answers, the JSON does not decode: %v", name, what, err)
		return true
	}
	if !reflect.DeepEqual(v, want) {
		text, _ := yaml.Marshal(o.Node)
		t.Errorf("%s (%s): Value\n%#v\nJSON\n%#v\nof\n%s", name, what, v, want, text)
	}
	sameJSON(t, name+" ("+what+")", v)
	return true
}

// TestValueAgrees: over every object of the repository and the rendered
// fleet, and random mutations of them, Value is the JSON path's value
// wherever it answers, and it answers for most.
func TestValueAgrees(t *testing.T) {
	var all []*manifest.Object
	answered := 0
	for _, f := range objectFiles(t) {
		for _, o := range f.objs {
			all = append(all, o)
			if sameValue(t, f.name, "as written", o) {
				answered++
			}
		}
	}
	t.Logf("Value answers for %d of %d objects", answered, len(all))
	if len(all) < 500 || answered < len(all)*3/4 {
		t.Errorf("Value answers for %d of %d objects: want most of at least 500", answered, len(all))
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	n := 6000
	if testing.Short() {
		n = 1000
	}
	answered = 0
	for range n {
		o := all[rnd.IntN(len(all))].Clone()
		what := mutate(o.Node, rnd)
		if what != "" && sameValue(t, o.Src.Path, what, o) {
			answered++
		}
	}
	t.Logf("%d mutations, Value answers for %d", n, answered)
	if answered == 0 {
		t.Error("Value answers for no mutated object")
	}
}

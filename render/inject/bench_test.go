package inject

import (
	"testing"

	"github.com/krender/krender/model/manifest"
)

// BenchmarkApply injects the test fragment into one two-container
// Deployment: selection, copy, merge or yq's +=, position bookkeeping and
// the istio scan. Parsing the template is outside the timer.
func BenchmarkApply(b *testing.B) {
	for _, mode := range []string{ModeMerge, ModeAppend} {
		b.Run(mode, func(b *testing.B) {
			st := newStage(b, mode)
			objs, err := manifest.Parse(manifest.NewSource("app.yaml", []byte(template)))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				s := &manifest.Set{Objects: []*manifest.Object{objs[0].Clone()}}
				b.StartTimer()
				if err := st.Apply(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

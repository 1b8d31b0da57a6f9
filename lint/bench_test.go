package lint_test

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/internal/fleetgen"
	"github.com/krender/krender/lint"
	"github.com/krender/krender/render"
)

// BenchmarkCheck is `krender check` in-process on a generated fleet: the
// profile and templates loaded, every tenant rendered in memory with the
// linter as the last stage, findings collected; nothing printed.
func BenchmarkCheck(b *testing.B) {
	for _, tenants := range []int{10, 100} {
		f := fleetgen.Fleet{Apps: 20, Tenants: tenants}
		fsys := render.MapFS{}
		for name, text := range f.Files() {
			fsys[name] = &fstest.MapFile{Data: text}
		}
		opts := render.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}}
		b.Run(fmt.Sprintf("tenants=%d", tenants), func(b *testing.B) {
			var findings []lint.Finding
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if findings, _, err = lint.Run(fsys, opts, lint.Config{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Objects()), "ns/object")
			b.ReportMetric(float64(len(findings)), "findings")
		})
	}
}

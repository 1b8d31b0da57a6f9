package action_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/validator"
)

// BenchmarkCheck is `krender check` in-process on a generated fleet: the
// profile and templates loaded, every tenant rendered in memory with the
// linter as the last stage, findings collected; nothing printed.
func BenchmarkCheck(b *testing.B) {
	benchCheck(b, false)
}

// BenchmarkCheckCRD is BenchmarkCheck with the fleet's custom resources (a
// ServiceMonitor per app per tenant) and their CRD (--crds): the same
// render and rules, plus the CRD compiled once per run and every custom
// resource validated against it.
func BenchmarkCheckCRD(b *testing.B) {
	benchCheck(b, true)
}

func benchCheck(b *testing.B, custom bool) {
	for _, tenants := range []int{10, 100} {
		f := fleetgen.Fleet{Apps: 20, Tenants: tenants}
		fsys := f.FS()
		opts := action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}}
		objects := f.Objects()
		if custom {
			opts.Paths = append(opts.Paths, fleetgen.CustomDir)
			opts.CRDs = []string{fleetgen.CRDsDir}
			objects += f.CustomObjects()
		}
		b.Run(fmt.Sprintf("tenants=%d", tenants), func(b *testing.B) {
			var findings []check.Finding
			b.ReportAllocs()
			for b.Loop() {
				var err error
				res, err := (&action.Check{FS: filesys.NewMem(fsys), Options: opts, Validator: validator.APIServer{}}).Run(b.Context())
				if findings = res.Findings; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*objects), "ns/object")
			b.ReportMetric(float64(len(findings)), "findings")
			if custom {
				typos := 0
				for _, x := range findings {
					if x.Rule == "unknown-field" {
						typos += len(x.Tenants)
					}
				}
				if typos != f.Typos()*tenants {
					b.Fatalf("%d unknown-field findings over the tenants, want the %d planted", typos, f.Typos()*tenants)
				}
			}
		})
	}
}

// BenchmarkCheckVsRender runs `krender render` (every tenant rendered and
// written as one YAML stream, to nowhere) and `krender check` (the same
// render with the linter as its last stage, nothing written) on the same
// generated fleet, one after the other in the same process, so that their
// ratio can be read from one run.
func BenchmarkCheckVsRender(b *testing.B) {
	for _, tenants := range []int{10, 100} {
		f := fleetgen.Fleet{Apps: 20, Tenants: tenants}
		fsys := f.FS()
		opts := action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}}
		b.Run(fmt.Sprintf("tenants=%d/render", tenants), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e, err := action.Engine(filesys.NewMem(fsys), opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := output.WriteStream(e, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Objects()), "ns/object")
		})
		b.Run(fmt.Sprintf("tenants=%d/check", tenants), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (&action.Check{FS: filesys.NewMem(fsys), Options: opts, Validator: validator.APIServer{}}).Run(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Objects()), "ns/object")
		})
	}
}

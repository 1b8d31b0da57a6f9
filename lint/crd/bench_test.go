package crd_test

import (
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/lint/crd"
	"github.com/krender/krender/model/manifest"
)

func parseOne(b *testing.B, name string, text []byte) *manifest.Object {
	b.Helper()
	objs, err := manifest.Parse(manifest.NewSource(name, text))
	if err != nil || len(objs) != 1 {
		b.Fatalf("%s: %d objects, %v", name, len(objs), err)
	}
	return objs[0]
}

// BenchmarkCompile compiles the bench fleet's ServiceMonitor CRD (modelled
// on the Prometheus operator's) into a fresh catalog each time: what a
// `krender check` run pays once per distinct CRD.
func BenchmarkCompile(b *testing.B) {
	o := parseOne(b, fleetgen.CRD, fleetgen.CRDText())
	b.ReportAllocs()
	for b.Loop() {
		c, err := crd.NewCatalog([]*manifest.Object{o})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Files) != 1 || len(c.Files[0].Problems) > 0 {
			b.Fatalf("compiled: %+v", c.Files)
		}
	}
}

// BenchmarkValidate validates one rendered ServiceMonitor against the
// compiled CRD: what `krender check` pays per custom resource.
func BenchmarkValidate(b *testing.B) {
	c, err := crd.NewCatalog([]*manifest.Object{parseOne(b, fleetgen.CRD, fleetgen.CRDText())})
	if err != nil {
		b.Fatal(err)
	}
	o := parseOne(b, "servicemonitor.yaml", fleetgen.Fleet{Apps: 1, Tenants: 1}.CustomResource(0, 0))
	d := c.Lookup(nil, o)
	if d == nil {
		b.Fatal("no definition for the ServiceMonitor")
	}
	b.ReportAllocs()
	for b.Loop() {
		ps, err := d.Validate(o, "default")
		if err != nil {
			b.Fatal(err)
		}
		if len(ps) > 0 {
			b.Fatalf("problems: %+v", ps)
		}
	}
}

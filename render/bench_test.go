package render

import (
	"fmt"
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
)

func perObject(b *testing.B, objects int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*objects), "ns/object")
}

// BenchmarkSubstitute is substitution alone, per object of one tenant.
func BenchmarkSubstitute(b *testing.B) {
	e := fleetEngine(b, fleetgen.Fleet{Apps: 20, Tenants: 1}, Options{})
	vars := e.Units[0].Vars.Map()
	clones := make([]*manifest.Object, len(e.Templates))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i, t := range e.Templates {
			clones[i] = t.Clone()
		}
		b.StartTimer()
		for _, o := range clones {
			e.subst.Substitute(o, vars, nil)
		}
	}
	perObject(b, len(clones))
}

// BenchmarkRenderUnit is one tenant through the whole pipeline but output:
// clone, substitute, checks, every stage, directives stripped.
func BenchmarkRenderUnit(b *testing.B) {
	e := fleetEngine(b, fleetgen.Fleet{Apps: 20, Tenants: 1}, Options{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Render(e.Units[0]); err != nil {
			b.Fatal(err)
		}
	}
	perObject(b, len(e.Templates))
}

// BenchmarkStages times each stage of the pipeline (as buildStages lists
// them), per object, on sets that have been through the stages before it.
func BenchmarkStages(b *testing.B) {
	e := fleetEngine(b, fleetgen.Fleet{Apps: 20, Tenants: 1}, Options{})
	fresh := func(upTo int) *manifest.Set {
		s := &manifest.Set{Tenant: e.Units[0].Tenant, Namespace: e.namespace, Vars: e.Units[0].Vars.Map()}
		for _, t := range e.Templates {
			s.Objects = append(s.Objects, t.Clone())
		}
		for _, st := range e.stages[:upTo] {
			if err := st.Apply(s); err != nil {
				b.Fatal(err)
			}
		}
		return s
	}
	if len(e.stages) == 0 {
		b.Skip("the fleet profile turns on no stage yet")
	}
	for k, st := range e.stages {
		b.Run(fmt.Sprintf("%d-%T", k, st), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				s := fresh(k)
				b.StartTimer()
				if err := st.Apply(s); err != nil {
					b.Fatal(err)
				}
			}
			perObject(b, len(e.Templates))
		})
	}
}

package fieldcheck_test

import (
	"testing"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/model/manifest"
)

// BenchmarkCheckDeployment is Check on a Deployment of the bench fleet as
// rendered: a clean object, so the fast path answers alone.
func BenchmarkCheckDeployment(b *testing.B) {
	f := fleetgen.Fleet{Apps: 1, Tenants: 1}
	e, err := action.Engine(filesys.NewMem(f.FS()), action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}})
	if err != nil {
		b.Fatal(err)
	}
	var d *manifest.Object
	if _, err := e.Each(func(s *manifest.Set) error {
		for _, o := range s.Objects {
			if o.Kind() == "Deployment" && d == nil {
				d = o
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if d == nil {
		b.Fatal("the fleet has no Deployment")
	}
	b.ReportAllocs()
	for b.Loop() {
		problems, err := fieldcheck.Check(d)
		if err != nil || len(problems) > 0 {
			b.Fatalf("%v %v: want a clean Deployment", err, problems)
		}
	}
}

package diff_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/action/diff"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/lint/validator"
)

// baseOf is the fleet as it was before a pull request (fleetgen.BaseEdits:
// two workloads roll in every tenant).
func baseOf(b *testing.B, head fstest.MapFS) fstest.MapFS {
	files := map[string][]byte{}
	for name, f := range head {
		files[name] = f.Data
	}
	baseFiles, err := fleetgen.BaseFiles(files)
	if err != nil {
		b.Fatal(err)
	}
	base := fstest.MapFS{}
	for name, text := range baseFiles {
		base[name] = &fstest.MapFile{Data: text}
	}
	return base
}

// BenchmarkDiffVsRender runs one render of the head (every tenant written
// as one YAML stream, to nowhere), `krender diff` of the head against its
// base (both sides rendered and compared, the changed workloads judged by
// the API server's code) and against itself (nothing to judge: the cost of
// two renders and the comparison), one after the other in the same process,
// so that their ratios can be read from one run.
func BenchmarkDiffVsRender(b *testing.B) {
	for _, tenants := range []int{100, 1000} {
		f := fleetgen.Fleet{Apps: 20, Tenants: tenants}
		head := f.FS()
		base := baseOf(b, head)
		opts := action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}}
		b.Run(fmt.Sprintf("tenants=%d/render", tenants), func(b *testing.B) {
			for b.Loop() {
				e, err := action.Engine(filesys.NewMem(head), opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := output.WriteStream(e, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Objects()), "ns/object")
		})
		for _, c := range []struct {
			name  string
			base  fstest.MapFS
			rolls int
		}{{"diff", base, 2 * tenants}, {"diff-unchanged", head, 0}} {
			b.Run(fmt.Sprintf("tenants=%d/%s", tenants, c.name), func(b *testing.B) {
				var res *diff.Result
				for b.Loop() {
					d := &diff.Diff{Options: action.Options{Paths: opts.Paths}, Profiles: []string{fleetgen.Profile},
						Head: filesys.NewMem(head), Base: filesys.NewMem(c.base), BaseName: "base", Validator: validator.APIServer{}}
					var err error
					if res, err = d.Run(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Objects()), "ns/object")
				if res.Summary.Rolls != c.rolls {
					b.Fatalf("%d workloads roll, want %d", res.Summary.Rolls, c.rolls)
				}
			})
		}
	}
}

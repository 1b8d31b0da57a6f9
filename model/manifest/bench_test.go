package manifest

import (
	"io"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/krender/krender/internal/testing/fleetgen"
)

// fleetTemplates are the generated fleet's templates, one per object.
func fleetTemplates(b *testing.B) []*Source {
	files := fleetgen.Fleet{Apps: 20}.Files()
	var names []string
	for n := range files {
		if len(n) > len(fleetgen.AppsDir) && n[:len(fleetgen.AppsDir)] == fleetgen.AppsDir {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var srcs []*Source
	for _, n := range names {
		srcs = append(srcs, NewSource(n, files[n]))
	}
	return srcs
}

func parseAll(b *testing.B, srcs []*Source) []*Object {
	var objs []*Object
	for _, s := range srcs {
		o, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, o...)
	}
	return objs
}

func perObject(b *testing.B, objects int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*objects), "ns/object")
}

// BenchmarkParse is the per-object cost krender pays once per run (and the
// floor's cost for every object of a fleet).
func BenchmarkParse(b *testing.B) {
	srcs := fleetTemplates(b)
	b.ReportAllocs()
	for b.Loop() {
		parseAll(b, srcs)
	}
	perObject(b, len(srcs))
}

// BenchmarkClone is what each tenant pays per template before substitution.
func BenchmarkClone(b *testing.B) {
	objs := parseAll(b, fleetTemplates(b))
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range objs {
			o.Clone()
		}
	}
	perObject(b, len(objs))
}

// BenchmarkEncode is the output cost per rendered object: yamlemit (what
// krender uses) and go-yaml's Dumper alone (what it used before), side by side.
func BenchmarkEncode(b *testing.B) {
	for _, c := range []struct {
		name    string
		library bool
	}{{"yamlemit", false}, {"library", true}} {
		b.Run(c.name, func(b *testing.B) {
			objs := parseAll(b, fleetTemplates(b))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				enc := NewEncoder(io.Discard)
				if c.library {
					enc.UseLibrary()
				}
				for _, o := range objs {
					if err := enc.Encode(o); err != nil {
						b.Fatal(err)
					}
				}
				if err := enc.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			perObject(b, len(objs))
			// CPU time, not wall time: on a shared machine the process waits
			// for a core, and the wall time says more about the neighbours.
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*len(objs)), "cpu-ns/object")
		})
	}
}

// cpuTime is the user and system time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package output

import (
	"fmt"
	"io"
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
)

// BenchmarkWriteStream is a whole fleet to one stream on every core: the
// per-object cost should not grow with the number of tenants.
func BenchmarkWriteStream(b *testing.B) {
	for _, tenants := range []int{10, 100} {
		f := fleetgen.Fleet{Apps: 20, Tenants: tenants}
		b.Run(fmt.Sprintf("tenants=%d", tenants), func(b *testing.B) {
			e := fleetEngine(b, f, engineOptions{})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WriteStream(e, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Objects()), "ns/object")
		})
	}
}

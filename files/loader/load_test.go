package loader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/ordinary"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// A run-wide limit crossed in the first, a middle or the last file of a
// directory is one error, in that file, where file k alone would cross
// what the files before it left; the files after it are not read.
func TestRunWideLimitStopsTheRead(t *testing.T) {
	const n = 4
	dir := t.TempDir()
	files, texts := map[string]string{}, make([][]byte, n)
	for i := range texts {
		texts[i], _ = ordinary.Fill(700, 2*i, ordinary.Deployment)
		files[fmt.Sprintf("t/%d.yaml", i)] = string(texts[i])
	}
	testtool.WriteFiles(t, dir, files)
	nodes := make([]int, n)
	for i, text := range texts {
		objs, err := manifest.Parse(manifest.NewSource("count.yaml", text))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			manifest.Walk(o.Node, func(*yaml.Node) { nodes[i]++ })
		}
	}
	for _, k := range []int{0, 1, n - 1} {
		bytes, count := 0, 0
		for i := range k {
			bytes, count = bytes+len(texts[i]), count+nodes[i]
		}
		for _, c := range []struct {
			key        string
			run, alone limits.Limits
		}{
			{"inputBytes", limits.Limits{InputBytes: bytes + len(texts[k])/2}, limits.Limits{InputBytes: len(texts[k]) / 2}},
			{"inputNodes", limits.Limits{InputNodes: count + nodes[k]/2}, limits.Limits{InputNodes: nodes[k] / 2}},
		} {
			name := filepath.Join("t", fmt.Sprintf("%d.yaml", k))
			src := manifest.NewSource(name, texts[k])
			src.Limits = c.alone.Budget()
			_, want := manifest.Parse(src)
			read := 0
			tpl := Templates{FS: filesys.Dir(dir), Limits: c.run.Budget(), Seen: func(int) { read++ }}
			_, err := tpl.Load([]string{"t"})
			if want == nil || err == nil || err.Error() != strings.Replace(want.Error(), limitOf(c.alone, c.key), limitOf(c.run, c.key), 1) {
				t.Errorf("%s crossed in file %d: got %v\nwant %v", c.key, k, err, want)
			}
			if read != k+1 {
				t.Errorf("%s crossed in file %d: %d files read, want %d", c.key, k, read, k+1)
			}
		}
	}
}

// limitOf is how an error states limit key of l.
func limitOf(l limits.Limits, key string) string { return fmt.Sprintf(" %d ", *l.Field(key)) }

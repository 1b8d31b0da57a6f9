package manifest

import (
	"fmt"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/testing/ordinary"
	"github.com/krender/krender/model/limits"
)

// The defaults admit ordinary manifests up to the byte limits (the
// derivation is in docs/limits.md): the densest ordinary YAML measured,
// written up to fileBytes, inputBytes and documentBytes, passes the
// document and node limits, and takes at least limits.OrdinaryBytesPerNode bytes
// a node, the premise of the node defaults.
func TestDefaultsAdmitOrdinaryManifests(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: parses limits.inputBytes")
	}
	d := limits.Defaults()
	t.Run("smallest objects fill a file", func(t *testing.T) {
		text, docs := ordinary.Fill(d.FileBytes, 0, ordinary.Smallest)
		src := NewSource("small.yaml", text)
		if _, err := d.CheckText(src.LimitsFile()); err != nil {
			t.Fatalf("%d documents of %d bytes: %v", docs, len(text), err)
		}
		if docs <= d.FileBytes/(limits.MinDocumentBytes+2) {
			t.Fatalf("only %d documents: the case does not test limits.documents closely", docs)
		}
	})
	t.Run("small Deployments fill the input", func(t *testing.T) {
		lim := d.Budget()
		docs, nodes, bytes := 0, 0, 0
		for f := 0; bytes < d.InputBytes-1000; f++ {
			text, n := ordinary.Fill(min(d.FileBytes, d.InputBytes-bytes), docs, ordinary.Deployment)
			src := NewSource(fmt.Sprintf("deploy%d.yaml", f), text)
			src.Limits = lim
			objs, err := Parse(src)
			if err != nil {
				t.Fatalf("%s: %v", src.Path, err)
			}
			if len(objs) != n {
				t.Fatalf("%s: %d objects of %d documents", src.Path, len(objs), n)
			}
			for _, o := range objs {
				Walk(o.Node, func(*yaml.Node) { nodes++ })
			}
			docs, bytes = docs+n, bytes+len(text)
		}
		if docs < 20_000 {
			t.Fatalf("%d documents in %d bytes: not the small Deployments of docs/limits.md", docs, bytes)
		}
		if per := float64(bytes) / float64(nodes); per < limits.OrdinaryBytesPerNode {
			t.Fatalf("%d nodes in %d bytes, %.2f bytes a node: denser than limits.OrdinaryBytesPerNode (%d)", nodes, bytes, per, limits.OrdinaryBytesPerNode)
		}
		t.Logf("%d documents, %d nodes in %d bytes (%.2f bytes a node)", docs, nodes, bytes, float64(bytes)/float64(nodes))
	})
	t.Run("one large document", func(t *testing.T) {
		text := ordinary.LargeDeployment(d.DocumentBytes - 1)
		src := NewSource("large.yaml", []byte(text))
		objs, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		nodes := 0
		Walk(objs[0].Node, func(*yaml.Node) { nodes++ })
		if per := float64(len(text)) / float64(nodes); per < limits.OrdinaryBytesPerNode {
			t.Fatalf("%.2f bytes a node: denser than limits.OrdinaryBytesPerNode", per)
		}
	})
}

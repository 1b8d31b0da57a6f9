package limits

import "testing"

// The derived defaults are what docs/limits.md's table says.
func TestDefaultsDerived(t *testing.T) {
	d := Defaults()
	for _, c := range []struct {
		key       string
		got, want int
	}{
		{"documents", d.Documents, 174_762},
		{"nodes", d.Nodes, 349_525},
		{"inputNodes", d.InputNodes, 1_048_576},
		{"objects", d.Objects, 349_525},
		{"documents (derived)", d.Documents, d.FileBytes / MinDocumentBytes},
		{"nodes (derived)", d.Nodes, d.DocumentBytes / OrdinaryBytesPerNode},
		{"inputNodes (derived)", d.InputNodes, d.InputBytes / OrdinaryBytesPerNode},
		{"objects (derived)", d.Objects, outputBytes / MinDocumentBytes},
		{"objects admit templates at inputBytes", min(d.Objects, d.InputBytes/MinDocumentBytes), d.InputBytes / MinDocumentBytes},
	} {
		if c.got != c.want {
			t.Errorf("limits.%s: %d, want %d", c.key, c.got, c.want)
		}
	}
	for _, k := range limitKeys {
		if *defaultLimits.Field(k) > *maxLimits.Field(k) {
			t.Errorf("limits.%s: the default is above the maximum", k)
		}
	}
}

package contenthash

import (
	"testing"

	"go.yaml.in/yaml/v4"
)

var fuzzStyles = []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle, yaml.TaggedStyle}

// FuzzStringDataSum holds the text-only fast path (strsum.go) to
// kustomize's hasher on any ConfigMap data it takes: two entries, any
// keys, values and scalar styles.
func FuzzStringDataSum(f *testing.F) {
	for i, v := range tricky {
		f.Add("k", v, uint8(i), v, "value", uint8(i/6))
	}
	f.Fuzz(func(t *testing.T, k1, v1 string, s1 uint8, k2, v2 string, s2 uint8) {
		obj := configMap(str(k1, fuzzStyles[int(s1)%len(fuzzStyles)]), str(v1, fuzzStyles[int(s1/8)%len(fuzzStyles)]),
			str(k2, fuzzStyles[int(s2)%len(fuzzStyles)]), str(v2, fuzzStyles[int(s2/8)%len(fuzzStyles)]))
		m, ok := stringConfigMap(obj)
		if !ok {
			return
		}
		got, err := stringDataSum(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := kustomizeSum(obj)
		if err != nil {
			t.Fatalf("data %q: %q, %q: %q: the fast path hashes what kustomize refuses: %v", k1, v1, k2, v2, err)
		}
		if got != want {
			t.Fatalf("data %q: %q, %q: %q (styles %d, %d): fast path %s, kustomize %s", k1, v1, k2, v2, s1, s2, got, want)
		}
	})
}

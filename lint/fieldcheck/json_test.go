package fieldcheck_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/krender/krender/lint/fieldcheck"
)

// sameJSON checks ValueJSON's promise on v: Marshal's bytes, or its error.
func sameJSON(t testing.TB, name string, v any) {
	t.Helper()
	got, err := fieldcheck.ValueJSON(v)
	want, wantErr := json.Marshal(v)
	if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
		t.Errorf("%s: ValueJSON %s (%v), Marshal %s (%v)", name, got, err, want, wantErr)
	}
}

// TestValueJSONIsMarshal: what Value never gives but a Value-shaped tree
// may hold is written as Marshal writes it too (the repository's objects
// and their mutations go through sameValue).
func TestValueJSONIsMarshal(t *testing.T) {
	for name, v := range map[string]any{
		"html and quotes":   `<a href="x">&amp;</a> \ /`,
		"controls":          "\x00\x01\b\f\n\r\t\x1f\x7f",
		"line separators":   "a\u2028b\u2029c\u0085",
		"invalid UTF-8":     "a\xffb\xc3",
		"wide":              "日本語 🚀",
		"floats":            []any{0.0, math.Copysign(0, -1), 1.5, -2.25, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, 5e-324, math.MaxFloat64},
		"ints":              []any{int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64)},
		"empty and nil":     map[string]any{"m": map[string]any{}, "l": []any{}, "nm": map[string]any(nil), "nl": []any(nil), "n": nil},
		"key order":         map[string]any{"b": 1.0, "a": true, "B": false, "ä": "x", "": "empty", "a<": "html key"},
		"nested":            []any{map[string]any{"x": []any{map[string]any{"y": "z"}}}},
		"infinity":          []any{"a", math.Inf(1)},
		"NaN in a map":      map[string]any{"n": math.NaN()},
		"another type":      map[string]any{"n": 3},
		"another type deep": []any{map[string]any{"s": []string{"a"}}},
	} {
		sameJSON(t, name, v)
	}
}

func BenchmarkValueJSON(b *testing.B) {
	v := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web", "tier": "front"}},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "web", "image": "registry.example.com/web:2.4.1", "env": []any{map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "B", "value": "<2>"}},
				"resources": map[string]any{"limits": map[string]any{"cpu": 0.5, "memory": "1Gi"}}}}}}}}
	b.Run("ValueJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := fieldcheck.ValueJSON(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

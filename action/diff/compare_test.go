package diff

import (
	"math"
	"reflect"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

// TestEqualIsDeepEqual: equal says what reflect.DeepEqual says, of every
// pair among values as objects decode (YAML read into any) and the edge
// cases DeepEqual decides by type: nil against empty maps and lists,
// NaN, an int against a float, a timestamp.
func TestEqualIsDeepEqual(t *testing.T) {
	docs := []string{
		"a: 1", "a: 1.0", "a: '1'", "a: true", "a: null", "a: ~", "a: []", "a: {}", "a: [1, 2]", "a: [2, 1]",
		"a: {b: 1, c: [x, {d: e}]}", "a: {b: 1, c: [x, {d: f}]}", "a: {b: 1}", "a: 2001-12-14", "a: .nan",
		"a: 18446744073709551615", "a: -1", "a: 0x10", "a: 16", "[1, 2]", "x", "",
	}
	var values []any
	for _, d := range docs {
		var v any
		if err := yaml.Unmarshal([]byte(d), &v); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		values = append(values, v)
		if m, ok := v.(map[string]any); ok {
			values = append(values, m["a"])
		}
	}
	values = append(values, nil, map[string]any(nil), map[string]any{}, []any(nil), []any{}, math.NaN(),
		int(1), int64(1), uint64(1), float64(1), time.Unix(0, 0), []string{"a"}, map[any]any{1: 2})
	nan := []any{math.NaN()}
	values = append(values, nan, nan[:1], []any{math.NaN()}, map[string]any{"a": nan})
	for i, a := range values {
		for j, b := range values {
			if got, want := equal(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("equal(%#v, %#v) = %v (values %d, %d), DeepEqual says %v", a, b, got, i, j, want)
			}
		}
	}
}

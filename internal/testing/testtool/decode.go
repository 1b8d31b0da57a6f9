package testtool

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"go.yaml.in/yaml/v4"
)

// DecodeAll reads a YAML stream's documents as maps, empty ones left out:
// the objects two ways of rendering give, to be compared as data.
func DecodeAll(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []map[string]any
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

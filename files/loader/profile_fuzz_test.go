package loader

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/filepos"
)

// FuzzProfile: any bytes load as a profile or fail with errors that each
// name the file, line and column; nothing panics. A file it extends holds
// the same bytes, so extends chains and cycles are exercised too.
func FuzzProfile(f *testing.F) {
	for _, s := range []string{
		"vars: {A: a, B: 1}\ntenants: {t1: {vars: {A: b}}}\n",
		"extends: p.yaml\n",
		"extends: other.yaml\nnamespace: x\n",
		"inject:\n  - {name: x, fragment: f.yaml, container: app, values: {V: {value: 1.2.3.4, type: ip}}}\n",
		"zones:\n  z-a: {hostAliases: [{ip: 10.0.0.1, hostnames: [h.example.com]}]}\nzoneHosts: {strategy: split, suffix: zone}\n",
		"hash: {mode: annotation, references: [{kind: K, path: spec/x, to: Secret}]}\ncheck: {disable: [subpath]}\nistioGuard: false\n",
		"limits: {nodes: 5, depth: 3}\nvars: {A: &a x}\ntenants: {t: {vars: {B: *a}}}\n",
		"vars: [a]\n", "? [a]\n: b\n", "- x\n", "!!binary aGVsbG8=\n", "vars: {A: !!map {}}\n", "---\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		fsys := fstest.MapFS{"p.yaml": {Data: text}, "other.yaml": {Data: text}}
		p, err := Profile(filesys.NewMem(fsys), nil, "p.yaml")
		if err == nil {
			if p == nil {
				t.Fatal("no profile and no error")
			}
			return
		}
		var list filepos.List
		var one *filepos.Error
		switch {
		case errors.As(err, &list):
		case errors.As(err, &one):
			list = filepos.List{one}
		default:
			t.Fatalf("%q: an error without a position: %v", text, err)
		}
		for _, e := range list {
			if e.Pos.File == "" || !e.Pos.IsKnown() {
				t.Fatalf("%q: error without a line: %v", text, e)
			}
		}
	})
}

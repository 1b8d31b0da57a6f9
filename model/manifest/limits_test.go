package manifest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/testing/ordinary"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
)

// Decode holds every file to the limits policy (package limits), with
// the positions of the file it reads.

// bomb is nine levels of nine aliases: 9^9 nodes once expanded.
func bomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  labels:\n")
	b.WriteString(`    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		b.WriteString("    " + string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = string(c)
	}
	b.WriteString("data:\n  k: *i\n")
	return b.String()
}

func TestLimitErrors(t *testing.T) {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
	small := limits.Limits{FileBytes: 1 << 20, DocumentBytes: 4096, Documents: 3, Nodes: 100, Depth: 10}
	cases := []struct {
		name, text string
		lim        limits.Limits
		want       string // error: position and message start
	}{
		{"alias bomb", bomb(), limits.Limits{}, "x.yaml:11:24: excessive aliasing: *e stands for 66430 nodes, which takes document 1 past 349525 nodes"},
		{"deep flow", head + "x: " + strings.Repeat("[", 11) + strings.Repeat("]", 11) + "\n", small, "x.yaml:4:13: nesting deeper than 10 levels (limits.depth"},
		{"deep block", head + "x:\n" + strings.Repeat("- ", 11) + "x\n", small, "x.yaml:5:19: nesting deeper than 10 levels"},
		{"many nodes", head + "x: [" + strings.Repeat("1,", 200) + "1]\n", small, "x.yaml:4:"},
		{"many documents", strings.Repeat("---\n", 5) + head, small, "x.yaml:4:1: more than 3 documents in one file (limits.documents"},
		{"large document", head + "x: " + strings.Repeat("y", 5000) + "\n", small, "x.yaml:1:1: document 1 is larger than 4096"},
		{"large file", head + "x: " + strings.Repeat("y", 5000) + "\n", limits.Limits{FileBytes: 100}, "x.yaml:4:50: the file is larger than 100"},
		{"NUL", head + "x: a\x00b\n", limits.Limits{}, "x.yaml:4:5: invalid YAML: control character U+0000"},
		{"invalid UTF-8", head + "x: a\xffb\n", limits.Limits{}, "x.yaml:4:5: invalid YAML: invalid UTF-8 (byte 0xff)"},
		{"UTF-16", "\xff\xfea\x00", limits.Limits{}, "x.yaml:1:1: the file is UTF-16"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := NewSource("x.yaml", []byte(c.text))
			src.Limits = c.lim
			_, err := Parse(src)
			if err == nil {
				t.Fatalf("parsed; want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got  %v\nwant %s...", err, c.want)
			}
		})
	}
}

// Within the limits, nothing changes: the bundled templates parse as before.
func TestDefaultsAcceptTheBundledTemplates(t *testing.T) {
	for _, text := range []string{bomb()[:strings.Index(bomb(), "  labels:")] + "data: {k: v}\n", "a: &x {b: 1}\nc: *x\nd: *x\n"} {
		if _, err := Parse(NewSource("x.yaml", []byte(text))); err != nil {
			t.Fatal(err)
		}
	}
}

// Alias-expanded counts follow yqlib's resolution: across documents, the
// latest complete anchor of a name.
func TestNodesCountAliasesAcrossDocuments(t *testing.T) {
	text := "a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9]\n---\nb: [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\n"
	src := NewSource("x.yaml", []byte(text))
	src.Limits = limits.Limits{Nodes: 100}
	err := Decode(src, yqlib.NewDefaultYamlPreferences(), func(int, *yaml.Node, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing: *x stands for 10 nodes") {
		t.Fatalf("got %v", err)
	}
}

// tripRun is a run of ordinary files, file k of them made to cross limit
// key: what a template directory of Deployments looks like when one file
// of it, or the run as a whole, is too large.
type tripRun struct {
	key   string
	files [][]byte
	lim   limits.Limits
	// alone is file k read on its own with what the files before it left
	// of the run's budget: the error the run must give.
	alone limits.Limits
}

// ordinaryFile is the i-th file of a run: two small Deployments.
func ordinaryFile(i int) []byte {
	text, _ := ordinary.Fill(700, 2*i, ordinary.Deployment)
	return text
}

// nodesOf counts the nodes of every document of text as the limits do.
func nodesOf(t *testing.T, text []byte) int {
	t.Helper()
	n := 0
	if err := Decode(NewSource("count.yaml", text), yqlib.NewDefaultYamlPreferences(), func(_ int, d *yaml.Node, _ string) error {
		Walk(d, func(*yaml.Node) { n++ })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// tripRuns are every limit a file's text can cross, each in file k of n.
func tripRuns(t *testing.T, n, k int) []tripRun {
	t.Helper()
	files := func(trip []byte) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = ordinaryFile(i)
		}
		if trip != nil {
			out[k] = trip
		}
		return out
	}
	withDoc := func(doc string) []byte { return append(ordinaryFile(k), "---\n"+doc...) }
	large, _ := ordinary.Fill(3000, 2*k, ordinary.Deployment)
	deep := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x: " + strings.Repeat("[", 15) + strings.Repeat("]", 15) + "\n"
	runs := []tripRun{
		{key: "fileBytes", files: files(large), lim: limits.Limits{FileBytes: 1500}},
		{key: "documentBytes", files: files(withDoc(ordinary.LargeDeployment(1500))), lim: limits.Limits{DocumentBytes: 1000}},
		{key: "documents", files: files(withDoc(ordinary.Deployment(k) + "---\n" + ordinary.Deployment(k+1))), lim: limits.Limits{Documents: 3}},
		{key: "nodes", files: files(withDoc(ordinary.LargeDeployment(1500))), lim: limits.Limits{Nodes: 100}},
		{key: "depth", files: files(withDoc(deep)), lim: limits.Limits{Depth: 12}},
	}
	for i := range runs {
		runs[i].alone = runs[i].lim
	}
	// The run-wide limits: the files before k take their share, and k
	// crosses the limit half-way through its own.
	all := files(nil)
	before, nodes := 0, 0
	for _, f := range all[:k] {
		before, nodes = before+len(f), nodes+nodesOf(t, f)
	}
	half := len(all[k]) / 2
	runs = append(runs,
		tripRun{key: "inputBytes", files: all, lim: limits.Limits{InputBytes: before + half}, alone: limits.Limits{InputBytes: half}},
		tripRun{key: "inputNodes", files: all, lim: limits.Limits{InputNodes: nodes + nodesOf(t, all[k])/2}, alone: limits.Limits{InputNodes: nodesOf(t, all[k]) / 2}})
	return runs
}

func tripName(i int) string { return fmt.Sprintf("t%d.yaml", i) }

// parseRun parses the files of r with one budget, one after the other or
// all at once, and returns each file's error.
func parseRun(r tripRun, parallel bool) []error {
	lim := r.lim.Budget()
	errs := make([]error, len(r.files))
	parse := func(i int) {
		src := NewSource(tripName(i), r.files[i])
		src.Limits = lim
		_, errs[i] = Parse(src)
	}
	var wg sync.WaitGroup
	for i := range r.files {
		if !parallel {
			parse(i)
			continue
		}
		wg.Go(func() { parse(i) })
	}
	wg.Wait()
	return errs
}

// samePlace: err is limit key's error, at want's position.
func samePlace(err, want error, key string) bool {
	var e, w *filepos.Error
	return errors.As(err, &e) && errors.As(want, &w) && e.Pos == w.Pos && strings.Contains(e.Msg, "(limits."+key+";")
}

// Every limit, crossed in the first, a middle or the last file of a run,
// read one file after the other or all at once: the error is the one file
// k alone gives with what the files before it left, at a place in file k.
// A file after the one that crossed a run-wide limit is refused at its
// first byte or node. (A run-wide limit took positions from the run's
// count: two files of 7.3 MiB, each under fileBytes and together over
// inputBytes, ended in "index out of range [-1]".)
func TestEveryLimitInEveryFile(t *testing.T) {
	const n = 4
	for _, k := range []int{0, 1, n - 1} {
		for _, r := range tripRuns(t, n, k) {
			src := NewSource(tripName(k), r.files[k])
			src.Limits = r.alone.Budget()
			_, want := Parse(src)
			if want == nil || !strings.Contains(want.Error(), "(limits."+r.key+";") {
				t.Fatalf("%s alone in file %d: %v; the case does not cross the limit", r.key, k, want)
			}
			runWide := strings.HasPrefix(r.key, "input")
			t.Run(fmt.Sprintf("%s in file %d of %d, one after the other", r.key, k, n), func(t *testing.T) {
				for i, err := range parseRun(r, false) {
					switch {
					case i == k:
						if !samePlace(err, want, r.key) {
							t.Errorf("file %d: got %v\nwant the limit at %v", i, err, want)
						}
					case i > k && runWide:
						if err == nil || !strings.HasPrefix(err.Error(), tripName(i)+":1:1: ") || !strings.Contains(err.Error(), "(limits."+r.key+";") {
							t.Errorf("file %d, after the run crossed %s: got %v, want the limit at its start", i, r.key, err)
						}
					case err != nil:
						t.Errorf("file %d: %v", i, err)
					}
				}
			})
			t.Run(fmt.Sprintf("%s in file %d of %d, all at once", r.key, k, n), func(t *testing.T) {
				errs := parseRun(r, true)
				if !runWide {
					for i, err := range errs {
						if i == k && !samePlace(err, want, r.key) || i != k && err != nil {
							t.Errorf("file %d: %v", i, err)
						}
					}
					return
				}
				// Which file crosses a run-wide limit depends on which
				// finished first; each error is its own file's.
				failed := 0
				for i, err := range errs {
					if err == nil {
						continue
					}
					failed++
					var fe *filepos.Error
					if !errors.As(err, &fe) || fe.Pos.File != tripName(i) || !strings.Contains(fe.Msg, "(limits."+r.key+";") {
						t.Errorf("file %d: %v", i, err)
						continue
					}
					if off := NewSource(tripName(i), r.files[i]).Offset(fe.Pos.Line, fe.Pos.Col); off < 0 || off >= len(r.files[i]) {
						t.Errorf("file %d: %v is not in the file", i, err)
					}
				}
				if failed == 0 {
					t.Errorf("no file crossed %s", r.key)
				}
			})
		}
	}
}

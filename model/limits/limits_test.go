package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
	"go.yaml.in/yaml/v4/plugin/aliasdata"

	"github.com/krender/krender/model/filepos"
)

// testFile is text as a caller hands it to the checks: positions of LF lines.
func testFile(path string, text []byte) File {
	posAt := func(off int) filepos.Pos {
		line, start := 1, 0
		for i := 0; i < off; i++ {
			if text[i] == '\n' {
				line, start = line+1, i+1
			}
		}
		return filepos.Pos{File: path, Line: line, Col: utf8.RuneCount(text[start:off]) + 1}
	}
	parseErr := func(err error) error { return filepos.Errorf(filepos.Pos{File: path}, "invalid YAML: %v", err) }
	return File{Path: path, Text: text, PosAt: posAt, ParseError: parseErr}
}

func countNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += countNodes(c)
	}
	return count
}

// A document of many nodes whose bytes could hold more (a large JSON
// scalar, say) is parsed once more to count exactly, and passes.
func TestExactCountWhenTheBoundIsNotEnough(t *testing.T) {
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  json: '" + strings.Repeat(`{"a": [1, 2], "b": "-"},`, 100) + "'\n"
	src, lim := testFile("x.yaml", []byte(text)), Limits{Nodes: 50}
	if exact, err := lim.CheckText(src); err != nil || !exact {
		t.Fatalf("CheckText = %v, %v; want an exact count asked for", exact, err)
	}
	if err := lim.CheckTextNodes(src, true); err != nil {
		t.Fatal(err)
	}
}

func TestProfileLimitsMerge(t *testing.T) {
	l := Limits{Nodes: 5}.Merge(Limits{Depth: 7}).OrDefault()
	if l.Nodes != 5 || l.Depth != 7 || l.Objects != Defaults().Objects {
		t.Fatalf("merged %+v", l)
	}
}

// goYAMLCounts parses text as Decode does and returns the documents and
// the most nodes one of them has (aliases counted once), or ok=false when
// go-yaml refuses the text.
func goYAMLCounts(text []byte) (docs, most int, ok bool) {
	aliases, err := aliasdata.New(aliasdata.WithStream(true))
	if err != nil {
		return 0, 0, false
	}
	ld, err := yaml.NewLoader(bytes.NewReader(yqlibLeading(text)), yaml.WithPlugin(aliases))
	if err != nil {
		return 0, 0, false
	}
	for {
		var n yaml.Node
		err := ld.Load(&n)
		if errors.Is(err, io.EOF) {
			return docs, most, true
		}
		if err != nil {
			return 0, 0, false
		}
		docs++
		count := 0
		for _, c := range n.Content {
			count += countNodes(c)
		}
		most = max(most, count)
	}
}

// FuzzTextBounds holds CheckText's cheap bounds to what go-yaml parses:
// every document's nodes within the bound it computes without parsing (so
// that skipping the exact count is safe), and no more documents than it
// counted.
func FuzzTextBounds(f *testing.F) {
	for _, s := range []string{"a: b", "[a, b: c, {d}, ?]", "{a, b, c}", "- - - x\n-\n-", "? a\n: b\n? c", "a:\n  b:\n    c: d",
		"--- a\n...\n--- [b]\n", "[?, ?, :]", "a: &x [1, 2]\nb: *x\n", "\xef\xbb\xbf--- x\n\xef\xbb\xbf--- y\n", "%YAML 1.1\n--- a\n", "# c\n--- |\n  x\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 4096 {
			return
		}
		docs, most, ok := goYAMLCounts(text)
		if !ok {
			return
		}
		src := testFile("f.yaml", text)
		if _, err := checkTextErr(src, Limits{Documents: max(docs-1, 1)}); docs > 1 && err == nil {
			t.Fatalf("%q: go-yaml reads %d documents; CheckText counted fewer", text, docs)
		}
		if most > 1 {
			exact, err := checkTextErr(src, Limits{Nodes: most - 1})
			if err == nil && !exact {
				t.Fatalf("%q: a document has %d nodes; CheckText's bound is below it", text, most)
			}
		}
	})
}

func checkTextErr(src File, l Limits) (bool, error) {
	l.Documents = max(l.Documents, 0)
	return l.CheckText(src)
}

// FuzzBudget reads a text cut into three files with one run's budget, as a
// reader of templates does: whatever the files and limits, every error is
// at a place in the file it names (a run-wide limit once took positions
// from the run's count, out of the file: index out of range [-1]), and the
// file that takes the run past inputBytes is refused at the byte where it
// does, the files after it at their first byte.
func FuzzBudget(f *testing.F) {
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: 2\n"
	two := deploy + "---\n" + deploy
	f.Add([]byte(two+two), uint16(len(two)), uint16(2*len(two)), uint16(len(two)+len(two)/2), uint16(1000))
	f.Add([]byte(two+two+two), uint16(len(two)), uint16(2*len(two)), uint16(2*len(two)), uint16(20))
	f.Add([]byte("a: [1, 2, 3]\n---\nb: &x {c: d}\ne: *x\n"), uint16(13), uint16(20), uint16(5), uint16(3))
	f.Fuzz(func(t *testing.T, text []byte, cut1, cut2, inBytes, inNodes uint16) {
		if len(text) > 4096 {
			return
		}
		c1 := min(int(cut1), len(text))
		c2 := max(c1, min(int(cut2), len(text)))
		lim := Limits{InputBytes: max(1, int(inBytes)), InputNodes: max(1, int(inNodes))}.Budget()
		before := 0
		for i, part := range [][]byte{text[:c1], text[c1:c2], text[c2:]} {
			name := fmt.Sprintf("f%d.yaml", i)
			err := readBudgeted(lim, testFile(name, part))
			var fe *filepos.Error
			if err != nil && errors.As(err, &fe) && fe.Pos.File != name {
				t.Fatalf("file %d: %v names another file", i, err)
			}
			if err != nil && fe != nil && fe.Pos.Line > bytes.Count(part, []byte("\n"))+1 {
				t.Fatalf("file %d: %v is past the file's end", i, err)
			}
			crossing := before <= lim.InputBytes && before+len(part) > lim.InputBytes
			if wantAt := lim.InputBytes - before; crossing && (fe == nil || fe.Pos != testFile(name, part).PosAt(wantAt)) {
				t.Fatalf("file %d takes the run past %d bytes at its byte %d; got %v", i, lim.InputBytes, wantAt, err)
			}
			if before > lim.InputBytes && (fe == nil || fe.Pos.Line != 1 || fe.Pos.Col != 1) {
				t.Fatalf("file %d, read after the run passed %d bytes: got %v, want the limit at its start", i, lim.InputBytes, err)
			}
			before += len(part)
		}
	})
}

// readBudgeted checks one file as a decoder does, within lim's budget.
func readBudgeted(lim Limits, src File) error {
	c, err := lim.Decoding(src, true)
	if err != nil {
		return err
	}
	aliases, err := aliasdata.New(aliasdata.WithStream(true))
	if err != nil {
		return err
	}
	ld, err := yaml.NewLoader(bytes.NewReader(yqlibLeading(src.Text)), yaml.WithPlugin(aliases))
	if err != nil {
		return nil // the parser's to report
	}
	for doc := 0; ; doc++ {
		var n yaml.Node
		if err := ld.Load(&n); err != nil {
			return nil // the end, or the parser's to report
		}
		for _, root := range n.Content {
			if err := c.Document(root, doc); err != nil {
				return err
			}
		}
	}
}

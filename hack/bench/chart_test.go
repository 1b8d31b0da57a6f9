package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// svgDoc is what the test reads from the chart: its texts and its paths.
type svgDoc struct {
	texts []string
	paths []svgPath
}

type svgPath struct {
	d, style string
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var doc svgDoc
	var root string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = se.Name.Local
		}
		attr := func(name string) string {
			for _, a := range se.Attr {
				if a.Name.Local == name {
					return a.Value
				}
			}
			return ""
		}
		switch se.Name.Local {
		case "text":
			var s string
			if err := dec.DecodeElement(&s, &se); err != nil {
				t.Fatal(err)
			}
			doc.texts = append(doc.texts, strings.TrimSpace(s))
		case "path":
			doc.paths = append(doc.paths, svgPath{attr("d"), attr("style")})
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return doc
}

// dataLines are the paths through at least n points: the series' lines
// (axes, ticks and legend samples are two points; the glyphs are arcs).
func (d svgDoc) dataLines(n int) []svgPath {
	var out []svgPath
	for _, p := range d.paths {
		if strings.Count(p.d, "L") >= n-1 && !strings.ContainsAny(p.d, "AZ") {
			out = append(out, p)
		}
	}
	return out
}

func chartRows(withBefore bool) []row {
	var rows []row
	for _, t := range []int{10, 100, 500, 1000} {
		r := sized(t, 5*t, 9*t, 500*t, 0, 100, 0)
		if withBefore {
			r.before = builds{render: usage{wall: ms(11 * t)}, check: usage{wall: ms(20 * t)}}
		}
		rows = append(rows, r)
	}
	return rows
}

func TestChartSVG(t *testing.T) {
	for _, c := range []struct {
		before bool
		want   []string
	}{
		{false, []string{"krender render", "krender check", "kubectl kustomize", "shell pipeline"}},
		{true, []string{"krender render", "krender check", "kubectl kustomize", "shell pipeline", "before build: render", "before build: check"}},
	} {
		var b bytes.Buffer
		if err := writeChart(&b, chartRows(c.before)); err != nil {
			t.Fatal(err)
		}
		doc := parseSVG(t, b.Bytes())
		var legend []string
		for _, s := range chartLines {
			if n := strings.Count("\x00"+strings.Join(doc.texts, "\x00")+"\x00", "\x00"+s.name+"\x00"); n > 0 {
				legend = append(legend, s.name)
			}
		}
		if !slices.Equal(legend, c.want) {
			t.Errorf("before %v: legend %q, want %q", c.before, legend, c.want)
		}
		lines := doc.dataLines(4)
		if len(lines) != len(c.want) {
			t.Errorf("before %v: %d lines through the 4 sizes, want %d", c.before, len(lines), len(c.want))
		}
		dashed := 0
		for _, l := range lines {
			if strings.Contains(l.style, "stroke-dasharray") {
				dashed++
			}
		}
		if want := len(c.want) - 4; dashed != want {
			t.Errorf("before %v: %d dashed lines, want %d (the before build's)", c.before, dashed, want)
		}
		// Log axes: the labelled ticks are whole decades, 100 to 100000
		// objects (600 to 60000 measured) and 10 ms to 1000 s (50 ms to 500 s).
		for _, want := range []string{"100", "1000", "10000", "100000", "10 ms", "100 ms", "1 s", "10 s", "100 s", "1000 s",
			"objects rendered (log scale)", "wall time (log scale)"} {
			if !slices.Contains(doc.texts, want) {
				t.Errorf("before %v: no %q among the chart's texts %q", c.before, want, doc.texts)
			}
		}
		for _, not := range []string{"20000", "50000"} {
			if slices.Contains(doc.texts, not) {
				t.Errorf("before %v: a linear tick %q", c.before, not)
			}
		}
		// The same rows draw the same bytes: a committed chart diffs cleanly.
		var again bytes.Buffer
		if err := writeChart(&again, chartRows(c.before)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), again.Bytes()) {
			t.Errorf("before %v: two charts of the same rows differ", c.before)
		}
	}
}

// TestChartLeavesOutWhatWasNotMeasured: no kustomize (-kustomize=false),
// no line for it; nothing measured, no chart.
func TestChartLeavesOutWhatWasNotMeasured(t *testing.T) {
	rows := chartRows(false)
	for i := range rows {
		rows[i].kustomize = usage{}
	}
	var b bytes.Buffer
	if err := writeChart(&b, rows); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	if slices.Contains(doc.texts, "kubectl kustomize") || len(doc.dataLines(4)) != 3 {
		t.Errorf("kustomize drawn though not measured: %q, %d lines", doc.texts, len(doc.dataLines(4)))
	}
	if err := writeChart(io.Discard, []row{{tenants: 10, objects: 600}}); err == nil {
		t.Errorf("a chart of nothing measured")
	}
	p, err := chart(rows)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("x scale %T", p.X.Scale)
	}
	if _, ok := p.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("y scale %T", p.Y.Scale)
	}
}

func TestDecades(t *testing.T) {
	for _, c := range []struct {
		in     []float64
		lo, hi float64
	}{
		{[]float64{600, 30000}, 100, 100000},
		{[]float64{1000, 10000}, 1000, 10000},
		{[]float64{1000}, 1000, 10000},
		{[]float64{0.05, 3}, 0.01, 10},
	} {
		if lo, hi := decades(c.in); lo != c.lo || hi != c.hi {
			t.Errorf("decades(%v) = %v, %v; want %v, %v", c.in, lo, hi, c.lo, c.hi)
		}
	}
}

func TestChartMarkdown(t *testing.T) {
	md := chartMarkdown(config{out: "/tmp/x/BENCHMARKS.md", sample: 10}, nil)
	if !strings.Contains(md, "](BENCHMARKS.svg)") || !strings.HasPrefix(md, "\n## Chart") {
		t.Errorf("%s", md)
	}
	if got := chartPath("/tmp/bench-test.md"); got != "/tmp/bench-test.svg" {
		t.Errorf("chartPath: %s", got)
	}
}

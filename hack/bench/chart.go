package main

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// series is one line of the chart: a tool's wall time at each fleet size.
type series struct {
	name   string
	wall   func(row) usage
	color  color.Color
	before bool // the before build: dashed, hollow points
}

// chartLines are the chart's lines, in legend order; a line with no
// measurement (kustomize switched off, no before build) is left out.
var chartLines = []series{
	{"krender render", func(r row) usage { return r.krender }, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, false},
	{"krender check", func(r row) usage { return r.check }, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, false},
	{"kubectl kustomize", func(r row) usage { return r.kustomize }, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, false},
	{"shell pipeline", func(r row) usage { return r.shell }, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, false},
	{"before build: render", func(r row) usage { return r.before.render }, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, true},
	{"before build: check", func(r row) usage { return r.before.check }, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, true},
}

// chartPath is the chart's file: the report's name with .svg.
func chartPath(report string) string {
	if report == "" {
		report = "BENCHMARKS.md"
	}
	return strings.TrimSuffix(report, filepath.Ext(report)) + ".svg"
}

// chartMarkdown embeds the chart in the report, beside which it is written.
func chartMarkdown(c config, rows []row) string {
	var b strings.Builder
	b.WriteString("\n## Chart (wall time against objects, both axes log scale)\n\n")
	fmt.Fprintf(&b, "![Wall time against objects: krender render, krender check, kubectl kustomize and the shell pipeline](%s)\n\n", filepath.Base(chartPath(c.out)))
	fmt.Fprintf(&b, "The rows above, one point per size. The shell pipeline's points above %d tenants are scaled from a sample of %d (see its\n", c.sample, c.sample)
	b.WriteString("description); dashed lines, where present, are the before build (see Before and after).\n")
	return b.String()
}

// writeChartFile writes the chart to path, whole or not at all.
func writeChartFile(path string, rows []row) error {
	var b bytes.Buffer
	if err := writeChart(&b, rows); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// writeChart draws wall time against objects on log-log axes, as SVG. The
// output depends on the rows alone (no date, no fonts embedded), so that a
// committed chart diffs only where the numbers changed.
func writeChart(w io.Writer, rows []row) error {
	p, err := chart(rows)
	if err != nil {
		return err
	}
	c := vgsvg.New(16*vg.Centimeter, 11*vg.Centimeter)
	p.Draw(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// chart builds the plot: one line per series that has a measurement.
func chart(rows []row) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "krender: wall time against fleet size"
	p.X.Label.Text = "objects rendered (log scale)"
	p.Y.Label.Text = "wall time (log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Tick.Marker = durationTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), vg.Points(-6)
	xs, ys := []float64{}, []float64{}
	for _, s := range chartLines {
		var pts plotter.XYs
		for _, r := range rows {
			if u := s.wall(r); u.wall > 0 && r.objects > 0 {
				pts = append(pts, plotter.XY{X: float64(r.objects), Y: u.wall.Seconds() * 1000})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		line.Color, points.Color = s.color, s.color
		line.Width = vg.Points(1.5)
		points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(2.5)
		if s.before {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			points.Shape = draw.RingGlyph{}
		}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
		for _, pt := range pts {
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("nothing measured to draw")
	}
	p.X.Min, p.X.Max = decades(xs)
	p.Y.Min, p.Y.Max = decades(ys)
	return p, nil
}

// decades widens a range of positive values to whole powers of ten, so that
// a log axis has a labelled tick at each end.
func decades(vs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	// The epsilon keeps an exact power of ten (whose logarithm may come out
	// a hair off) where it is.
	lo = math.Pow10(int(math.Floor(math.Log10(lo) + 1e-9)))
	hi = math.Pow10(int(math.Ceil(math.Log10(hi) - 1e-9)))
	if hi <= lo {
		hi = lo * 10
	}
	return lo, hi
}

// durationTicks are plot.LogTicks over milliseconds, labelled in ms below a
// second and in s above.
type durationTicks struct{}

func (durationTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i, t := range ticks {
		switch {
		case t.Label == "":
		case t.Value >= 1000:
			ticks[i].Label = strconv.FormatFloat(t.Value/1000, 'f', -1, 64) + " s"
		default:
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', -1, 64) + " ms"
		}
	}
	return ticks
}

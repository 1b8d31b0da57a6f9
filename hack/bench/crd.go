package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/lint/crd"
	"github.com/krender/krender/model/manifest"
)

// crdCost is what the CRD stages of `krender check` cost in-process, on
// one goroutine: compiling the fleet's CRD, and validating one rendered
// custom resource against it (crd's BenchmarkCompile and BenchmarkValidate).
type crdCost struct {
	compile, validate             time.Duration // per operation
	compileAllocs, validateAllocs int64
}

func measureCRD() (crdCost, error) {
	parse := func(name string, text []byte) (*manifest.Object, error) {
		objs, err := manifest.Parse(manifest.NewSource(name, text))
		if err != nil {
			return nil, err
		}
		if len(objs) != 1 {
			return nil, fmt.Errorf("%s: %d objects, want 1", name, len(objs))
		}
		return objs[0], nil
	}
	def, err := parse(fleetgen.CRD, fleetgen.CRDText())
	if err != nil {
		return crdCost{}, err
	}
	cr, err := parse("servicemonitor.yaml", fleetgen.Fleet{Apps: 1, Tenants: 1}.CustomResource(0, 0))
	if err != nil {
		return crdCost{}, err
	}
	cat, err := crd.NewCatalog([]*manifest.Object{def})
	if err != nil {
		return crdCost{}, err
	}
	if len(cat.Files) != 1 || len(cat.Files[0].Problems) > 0 {
		return crdCost{}, fmt.Errorf("%s does not compile: %+v", fleetgen.CRD, cat.Files)
	}
	d := cat.Lookup(nil, cr)
	if d == nil {
		return crdCost{}, fmt.Errorf("no definition for %s", cr.Kind())
	}
	if ps, err := d.Validate(cr, "default"); err != nil || len(ps) > 0 {
		return crdCost{}, fmt.Errorf("the ServiceMonitor does not validate: %v %+v", err, ps)
	}
	var failed error
	compile := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := crd.NewCatalog([]*manifest.Object{def}); err != nil {
				failed = err
				return
			}
		}
	})
	validate := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Validate(cr, "default"); err != nil {
				failed = err
				return
			}
		}
	})
	if failed != nil {
		return crdCost{}, failed
	}
	per := func(r testing.BenchmarkResult) time.Duration { return r.T / time.Duration(max(r.N, 1)) }
	return crdCost{per(compile), per(validate), compile.AllocsPerOp(), validate.AllocsPerOp()}, nil
}

func (c crdCost) text() string {
	return fmt.Sprintf("crd (in-process, one goroutine): compile the %s CRD %s (%d allocs); validate one %s %s (%d allocs)\n",
		fleetgen.CustomKind, micros(c.compile), c.compileAllocs, fleetgen.CustomKind, micros(c.validate), c.validateAllocs)
}

// micros prints a short duration in µs or ms.
func micros(d time.Duration) string {
	if d >= time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

// extraPerCR is what each custom resource added to check: the difference of
// the two check rows over the custom resources validated.
func extraPerCR(with, without time.Duration, customs int) string {
	if customs == 0 || with == 0 {
		return "–"
	}
	return micros((with - without) / time.Duration(customs))
}

// finding is what the bench reads of one of check's JSON findings.
type finding struct {
	Rule     string   `json:"rule"`
	Severity string   `json:"severity"`
	Object   string   `json:"object"`
	Tenants  []string `json:"tenants"`
}

// crdFindingsCheck runs, unmeasured, the check with custom resources and
// the one without with --format json, and renders the custom resources
// alone to count them; crdSummary says what that proves.
func crdFindingsCheck(f fleetgen.Fleet, dir, krender string) string {
	read := func(args ...string) ([]finding, error) {
		text, _, err := checkJSON(dir, krender, args...)
		if err != nil {
			return nil, err
		}
		var fs []finding
		if err := json.Unmarshal(text, &fs); err != nil {
			return nil, fmt.Errorf("krender check --format json: unreadable output: %v", err)
		}
		return fs, nil
	}
	with, err := read("--crds", fleetgen.CRDsDir, fleetgen.AppsDir, fleetgen.CustomDir)
	if err != nil {
		return err.Error()
	}
	without, err := read(fleetgen.AppsDir)
	if err != nil {
		return err.Error()
	}
	cmd := exec.Command(krender, "render", "-p", fleetgen.Profile, fleetgen.CustomDir)
	cmd.Dir = dir
	text, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("krender render %s FAILED: %v", fleetgen.CustomDir, err)
	}
	rendered := 0
	for _, line := range bytes.Split(text, []byte("\n")) {
		if string(line) == "kind: "+fleetgen.CustomKind {
			rendered++
		}
	}
	return crdSummary(f, rendered, with, without)
}

// crdSummary states how many custom resources the check validated against
// their CRD (those rendered less those it found no CRD for), whether the
// unknown-field findings on them are exactly the misspellings the fleet
// planted, in every tenant, and whether the apps' findings stayed as they
// are without the custom resources.
func crdSummary(f fleetgen.Fleet, rendered int, with, without []finding) string {
	instances := func(fs []finding, custom bool) map[string]int {
		n := map[string]int{}
		for _, x := range fs {
			if strings.HasPrefix(x.Object, fleetgen.CustomKind+"/") == custom {
				n[x.Rule] += max(len(x.Tenants), 1)
			}
		}
		return n
	}
	cr := instances(with, true)
	planted := f.Typos() * max(f.Tenants, 1)
	var b strings.Builder
	fmt.Fprintf(&b, "krender check --crds: %d %ss rendered", rendered, fleetgen.CustomKind)
	if rendered != f.CustomObjects() {
		fmt.Fprintf(&b, " (want %d)", f.CustomObjects())
	}
	fmt.Fprintf(&b, ", %d validated against CRD %s (%d crd-missing)", rendered-cr["crd-missing"], fleetgen.CRDName, cr["crd-missing"])
	if cr["unknown-field"] == planted {
		fmt.Fprintf(&b, "; %d unknown-field (%d misspelled × %d tenants), as planted", planted, f.Typos(), max(f.Tenants, 1))
	} else {
		fmt.Fprintf(&b, "; %d unknown-field, want the %d planted — DIFFERS", cr["unknown-field"], planted)
	}
	fmt.Fprintf(&b, "; %d crd-schema", cr["crd-schema"])
	for _, rule := range slices.Sorted(maps.Keys(cr)) {
		if rule != "unknown-field" && rule != "crd-schema" && rule != "crd-missing" {
			fmt.Fprintf(&b, "; %d %s", cr[rule], rule)
		}
	}
	apps, before := instances(with, false), instances(without, false)
	if maps.Equal(apps, before) {
		n := 0
		for _, x := range with {
			if !strings.HasPrefix(x.Object, fleetgen.CustomKind+"/") {
				n++
			}
		}
		fmt.Fprintf(&b, "; the apps' %d findings as without them", n)
	} else {
		fmt.Fprintf(&b, "; the apps' findings DIFFER: %v with the custom resources, %v without", apps, before)
	}
	return b.String()
}

// crdMarkdown is the report's section on custom resources: check with
// and without them, side by side from the same run, and the in-process
// cost of the CRD stages.
func crdMarkdown(c crdCost, rows []row) string {
	var b strings.Builder
	b.WriteString("\n## Custom resources in krender check\n\n")
	b.WriteString("`krender check` with the fleet's ServiceMonitors and their CRD, over the same check without them (same run);\n")
	b.WriteString("the added time per custom resource is the difference of the two rows over the custom resources validated\n")
	b.WriteString("(it includes compiling the CRD, once per run).\n\n")
	b.WriteString("| T | custom resources | check wall | check + CRs wall | ratio wall | ratio CPU | added wall / CR | added CPU / CR |\n|---:|---:|---:|---:|---|---|---:|---:|\n")
	for _, r := range rows {
		if r.checkCRD.wall == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s |\n", r.tenants, r.customs, dur(r.check.wall), dur(r.checkCRD.wall),
			ratio(r.checkCRD.wall, r.check.wall), ratio(r.checkCRD.cpu, r.check.cpu),
			extraPerCR(r.checkCRD.wall, r.check.wall, r.customs), extraPerCR(r.checkCRD.cpu, r.check.cpu, r.customs))
	}
	if c.compile > 0 {
		b.WriteString("\nIn-process, on one goroutine (`go test -bench 'Compile|Validate' ./lint/crd` measures the same): compiling the\n")
		fmt.Fprintf(&b, "%s CRD takes %s (%d allocations), once per distinct CRD per run; validating one\n",
			fleetgen.CustomKind, micros(c.compile), c.compileAllocs)
		fmt.Fprintf(&b, "%s against it takes %s (%d allocations).\n", fleetgen.CustomKind, micros(c.validate), c.validateAllocs)
	}
	return b.String()
}

// Command bench measures krender side by side with what it replaces, on
// generated fleets of 20 apps x T tenants:
//
//  1. the shell pipeline teams run today, per app file per tenant: GNU
//     envsubst with the profile's whitelist, then for injected apps
//     `yq del(hostAliases)` and `sed placeholders | yq '... += load(stdin)'`;
//  2. `kubectl kustomize` doing only the ConfigMap hash and reference
//     rewrite, one kustomization (a configMapGenerator per ConfigMap) per tenant;
//  3. krender doing everything the profile asks, and `krender check` (the
//     same render in memory, with the linter) on the same fleet and profile,
//     once as it is and once with a ServiceMonitor per app and its CRD
//     (--crds), which only that run reads;
//  4. a floor: the YAML library alone parsing and re-emitting krender's output;
//  5. given -before, a previous krender build's render and check, run
//     alternately with this build's, round by round, so that both share
//     the machine's noise.
//
// Each is run as a child process and measured by wall time, CPU time
// (user+sys, children included) and peak RSS, from wait4's rusage. Results
// go to stdout and to BENCHMARKS.md, with a chart of wall time against
// objects beside it (BENCHMARKS.svg); sections of BENCHMARKS.md that it does
// not write (notes added by hand) are kept, after the generated ones. Run it
// through `make bench` (`make bench BEFORE=<git ref>` for a before build).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
)

type config struct {
	sizes     []int
	diffSizes []int // tenant counts krender diff is measured at
	diffOnly  bool  // measure krender diff alone, rewrite its section only
	apps      int
	sample    int
	runs      int
	krender   string
	yq        string
	kubectl   string
	work      string
	out       string
	kustomize bool
	// before is a previous build measured alternately with krender's render
	// and check ("" for none); beforeName says what it is in the report.
	before, beforeName string
}

func main() {
	if len(os.Args) == 4 && (os.Args[1] == "floor" || os.Args[1] == "profile") {
		do := floor
		if os.Args[1] == "profile" {
			do = profileRender
		}
		if err := do(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, os.Args[1]+":", err)
			os.Exit(1)
		}
		return
	}
	var c config
	var sizes, diffSizes string
	flag.StringVar(&sizes, "sizes", "10,100,500", "tenant counts to measure")
	flag.IntVar(&c.apps, "apps", 20, "apps per tenant (a Deployment, a Service and a ConfigMap each)")
	flag.IntVar(&c.sample, "shell-sample", 10, "tenants the shell pipeline renders when T is larger; its time is scaled by T/sample")
	flag.IntVar(&c.runs, "runs", 5, "runs of krender and of the floor per size, rounds with -before (the median is reported)")
	flag.StringVar(&c.krender, "krender", "./krender", "krender binary")
	flag.StringVar(&c.yq, "yq", ".cache/bin/yq", "mikefarah yq binary (hack/tools.sh builds it)")
	flag.StringVar(&c.kubectl, "kubectl", "kubectl", "kubectl binary with kustomize built in")
	flag.StringVar(&c.work, "work", ".cache/bench", "scratch directory for fleets and outputs")
	flag.StringVar(&c.out, "out", "BENCHMARKS.md", "report file")
	flag.BoolVar(&c.kustomize, "kustomize", true, "measure kubectl kustomize")
	flag.StringVar(&c.before, "before", "", "a previous krender build to measure alternately with -krender (render and check); its krender-check, if it has one, beside it")
	flag.StringVar(&c.beforeName, "before-name", "", "what the -before build is, for the report (default: its path)")
	flag.StringVar(&diffSizes, "diff-sizes", "100,1000", "tenant counts krender diff is measured at, beside one render")
	flag.BoolVar(&c.diffOnly, "diff-only", false, "measure krender diff alone and rewrite only its section of the report")
	flag.Parse()
	c.sizes = tenantCounts("-sizes", sizes)
	c.diffSizes = tenantCounts("-diff-sizes", diffSizes)
	if c.beforeName == "" {
		c.beforeName = c.before
	}
	if err := run(c); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(1)
}

// usage is one measured run (or a scaled-up sample of one).
type usage struct {
	wall, cpu time.Duration
	rssKB     int64
	scaled    string // how a sample was scaled up, if it was
}

type row struct {
	tenants, objects int
	shell, kustomize usage
	krender, serial  usage // all cores; GOMAXPROCS=1
	check            usage // krender check, all cores
	checkCRD         usage // the same with the custom resources and --crds
	customs          int   // custom resources checkCRD validated
	floor            usage
	before           builds // the -before build, zero without one
	checks           []string
	load             string // /proc/loadavg when the size started
}

// tenantCounts reads a flag's comma-separated tenant counts.
func tenantCounts(name, list string) []int {
	var out []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("%s: %q is not a tenant count", name, s)
		}
		out = append(out, n)
	}
	return out
}

func run(c config) error {
	if err := resolveTools(&c); err != nil {
		return err
	}
	if c.diffOnly {
		return runDiffOnly(c)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	m := describeMachine(c)
	fmt.Print(m.text())
	fmt.Fprintln(os.Stderr, "CRD compile and validate, in-process")
	if m.crd, err = measureCRD(); err != nil {
		return err
	}
	fmt.Print(m.crd.text())
	var rows []row
	for _, t := range c.sizes {
		r, err := measureSize(c, self, t)
		if err != nil {
			return fmt.Errorf("size T=%d: %w", t, err)
		}
		rows = append(rows, r)
		fmt.Print(r.text())
	}
	// The size the shell target is judged at, or the largest: where krender's time goes.
	prof := rows[len(rows)-1]
	for _, r := range rows {
		if r.tenants == 100 {
			prof = r
		}
	}
	fmt.Fprintf(os.Stderr, "T=%d: profiling krender\n", prof.tenants)
	shares, err := whereTimeGoes(self, filepath.Join(c.work, fmt.Sprintf("t%d", prof.tenants)))
	if err != nil {
		return err
	}
	diffs, err := measureDiffs(c)
	if err != nil {
		return err
	}
	m.loadAfter = readTrim("/proc/loadavg")
	report := m.markdown(c, rows) + diffMarkdown(c, diffs) + profileMarkdown(prof.tenants, shares)
	// The file may hold sections written by hand: carry them over.
	old, err := os.ReadFile(c.out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	report, kept := withHandWritten(report, string(old))
	fmt.Println()
	fmt.Print(summary(c, rows, kept))
	if err := writeChartFile(chartPath(c.out), rows); err != nil {
		return err
	}
	return os.WriteFile(c.out, []byte(report), 0o644)
}

// resolveTools makes the paths absolute (children run in the fleet's
// directory) and finds every tool the run needs before anything is measured.
func resolveTools(c *config) error {
	for _, p := range []*string{&c.krender, &c.yq, &c.work, &c.out} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	tools := map[string]string{"krender": c.krender, "yq": c.yq, "envsubst": "envsubst", "sed": "sed", "bash": "bash"}
	if c.kustomize {
		tools["kubectl"] = c.kubectl
	}
	if c.before != "" {
		abs, err := filepath.Abs(c.before)
		if err != nil {
			return err
		}
		c.before = abs
		tools["the -before build"] = c.before
	}
	for name, path := range tools {
		if _, err := exec.LookPath(path); err != nil {
			return fmt.Errorf("%s not found (%s): run `make tools build` first", name, path)
		}
	}
	return nil
}

func measureSize(c config, self string, tenants int) (row, error) {
	f := fleetgen.Fleet{Apps: c.apps, Tenants: tenants}
	dir := filepath.Join(c.work, fmt.Sprintf("t%d", tenants))
	if err := os.RemoveAll(dir); err != nil {
		return row{}, err
	}
	if err := f.Write(dir); err != nil {
		return row{}, err
	}
	r := row{tenants: tenants, objects: f.Objects(), load: readTrim("/proc/loadavg")}
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return row{}, err
	}
	if err := measureRenderCheck(c, f, dir, &r); err != nil {
		return r, err
	}
	stream := filepath.Join(out, "krender.yaml")
	var err error

	// The same with every app's ServiceMonitor and the CRD it is validated
	// against: what custom resources add to a check.
	fmt.Fprintf(os.Stderr, "T=%d: krender check with custom resources\n", tenants)
	crdArgs := []string{"check", "-p", fleetgen.Profile, "--crds", fleetgen.CRDsDir, fleetgen.AppsDir, fleetgen.CustomDir}
	if r.checkCRD, err = median(c.runs, func() (usage, error) {
		return childExits(dir, nil, filepath.Join(out, "check-crd.txt"), checkExits, c.krender, crdArgs...)
	}); err != nil {
		return r, err
	}
	r.customs = f.CustomObjects()
	r.checks = append(r.checks, crdFindingsCheck(f, dir, c.krender))

	fmt.Fprintf(os.Stderr, "T=%d: floor\n", tenants)
	floorOut := filepath.Join(out, "floor.yaml")
	if r.floor, err = median(c.runs, func() (usage, error) { return child(dir, krenderGC, "", self, "floor", stream, floorOut) }); err != nil {
		return r, err
	}
	if same, err := sameFile(stream, floorOut); err != nil {
		return r, err
	} else if !same {
		r.checks = append(r.checks, "floor: re-emitted bytes DIFFER from krender's output")
	} else {
		r.checks = append(r.checks, "floor: parse+emit reproduces krender's output byte for byte")
	}

	fmt.Fprintf(os.Stderr, "T=%d: shell pipeline\n", tenants)
	n := min(tenants, c.sample)
	script := filepath.Join(dir, "shell.sh")
	if err := os.WriteFile(script, []byte(shellScript(f, n)), 0o755); err != nil {
		return r, err
	}
	if r.shell, err = child(dir, nil, "", "bash", script, c.yq); err != nil {
		return r, err
	}
	if n < tenants {
		r.shell = r.shell.scale(tenants, n)
	}
	files, _ := filepath.Glob(filepath.Join(out, "shell", "*", "*.yaml"))
	r.checks = append(r.checks, fmt.Sprintf("shell: wrote %d files for %d tenants (want %d)", len(files), n, n*c.apps*len(fleetgen.Kinds)))

	if c.kustomize {
		if err := measureKustomize(c, f, dir, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// measureRenderCheck measures krender render (and on one core) and krender
// check on the fleet in dir, each alternately with the before build's, if
// there is one, and states what they did.
func measureRenderCheck(c config, f fleetgen.Fleet, dir string, r *row) error {
	fmt.Fprintf(os.Stderr, "T=%d: krender%s\n", f.Tenants, c.andBefore())
	out := filepath.Join(dir, "out")
	stream := filepath.Join(out, "krender.yaml")
	beforeStream := filepath.Join(out, "before.yaml")
	var err error
	args := []string{"render", "-p", fleetgen.Profile, fleetgen.AppsDir}
	var renderBefore func(string) (usage, error)
	if c.before != "" {
		renderBefore = func(bin string) (usage, error) { return child(dir, nil, beforeStream, bin, args...) }
	}
	if r.krender, r.before.render, err = alongside(c,
		func(bin string) (usage, error) { return child(dir, nil, stream, bin, args...) }, renderBefore); err != nil {
		return err
	}
	if r.serial, err = median(c.runs, func() (usage, error) {
		return child(dir, []string{"GOMAXPROCS=1"}, filepath.Join(out, "krender-1.yaml"), c.krender, args...)
	}); err != nil {
		return err
	}
	r.checks = append(r.checks, krenderChecks(f, stream, filepath.Join(out, "krender-1.yaml"))...)
	if c.before != "" {
		r.checks = append(r.checks, beforeRenderCheck(stream, beforeStream))
	}

	// krender check on the same fleet and profile, its findings printed as
	// text (the default). Exit 1 means error findings: a successful run.
	fmt.Fprintf(os.Stderr, "T=%d: krender check%s\n", f.Tenants, c.andBefore())
	checkArgs := []string{"check", "-p", fleetgen.Profile, fleetgen.AppsDir}
	var checkBefore func(string) (usage, error)
	if c.before != "" {
		ok, note := beforeCheckWorks(dir, c.before)
		r.checks = append(r.checks, note)
		if ok {
			checkBefore = func(bin string) (usage, error) {
				return childExits(dir, nil, filepath.Join(out, "before-check.txt"), checkExits, bin, checkArgs...)
			}
		}
	}
	if r.check, r.before.check, err = alongside(c, func(bin string) (usage, error) {
		return childExits(dir, nil, filepath.Join(out, "check.txt"), checkExits, bin, checkArgs...)
	}, checkBefore); err != nil {
		return err
	}
	r.checks = append(r.checks, findingsCheck(dir, c.krender), aloneCheck(dir, c.krender, filepath.Join(out, "check.txt")))
	return nil
}

// aloneCheck runs the same check, unmeasured, with a copy of krender that
// has no krender-check to run, and states whether the measured check ran in
// krender itself: the same findings without it.
func aloneCheck(dir, krender, measured string) string {
	tmp, err := os.MkdirTemp("", "krender-alone")
	if err != nil {
		return "krender check alone: " + err.Error()
	}
	defer os.RemoveAll(tmp)
	b, err := os.ReadFile(krender)
	if err != nil {
		return "krender check alone: " + err.Error()
	}
	alone := filepath.Join(tmp, "krender")
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		return "krender check alone: " + err.Error()
	}
	cmd := exec.Command(alone, "check", "-p", fleetgen.Profile, fleetgen.AppsDir)
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + tmp}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	text, _ := cmd.Output()
	want, err := os.ReadFile(measured)
	switch {
	case err != nil:
		return "krender check alone: " + err.Error()
	case !slices.Contains(checkExits, cmd.ProcessState.ExitCode()):
		return "krender check: runs in krender-check (krender alone: " + strings.TrimSpace(errb.String()) + ")"
	case !bytes.Equal(text, want):
		return "krender check: krender alone prints OTHER findings than the measured check"
	}
	return "krender check: runs in krender itself (the same findings with no krender-check to run)"
}

// measureKustomize runs kubectl kustomize once per tenant on krender's
// unhashed output, each ConfigMap turned into a configMapGenerator.
func measureKustomize(c config, f fleetgen.Fleet, dir string, r *row) error {
	out := filepath.Join(dir, "out")
	fmt.Fprintf(os.Stderr, "T=%d: kubectl kustomize\n", f.Tenants)
	kz := filepath.Join(dir, "kustomize")
	if _, err := child(dir, nil, "", c.krender, "render", "-p", fleetgen.ProfileNoHash, "-o", kz, fleetgen.AppsDir); err != nil {
		return fmt.Errorf("preparing kustomize's input: %w", err)
	}
	if err := kustomizations(f, kz); err != nil {
		return err
	}
	script := filepath.Join(dir, "kustomize.sh")
	if err := os.WriteFile(script, []byte(kustomizeScript(f)), 0o755); err != nil {
		return err
	}
	var err error
	if r.kustomize, err = child(dir, nil, "", "bash", script, c.kubectl); err != nil {
		return err
	}
	r.checks = append(r.checks, hashCheck(f, filepath.Join(out, "krender.yaml"), filepath.Join(out, "kustomize", f.Tenant(0)+".yaml")))
	return nil
}

// child runs one command and measures it; stdout goes to the file named, or
// is discarded. Any exit status but 0 is a failure.
func child(dir string, env []string, stdout, name string, args ...string) (usage, error) {
	return childExits(dir, env, stdout, nil, name, args...)
}

// childExits is child with more exit statuses that count as success (for
// `krender check`, 1: it found errors in the manifests, not in running).
func childExits(dir string, env []string, stdout string, ok []int, name string, args ...string) (usage, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if stdout != "" {
		f, err := os.Create(stdout)
		if err != nil {
			return usage{}, err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && slices.Contains(ok, exit.ExitCode()) {
		err = nil
	}
	if err != nil {
		return usage{}, fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, errb.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return usage{
		wall:  wall,
		cpu:   time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		rssKB: ru.Maxrss, // kilobytes on Linux: the largest process of the tree
	}, nil
}

// median runs f n times and keeps the median wall and CPU time and the
// largest peak RSS.
func median(n int, f func() (usage, error)) (usage, error) {
	us, err := interleave(n, f)
	if err != nil {
		return usage{}, err
	}
	return us[0], nil
}

// andBefore names the before build in progress lines, when there is one.
func (c config) andBefore() string {
	if c.before == "" {
		return ""
	}
	return ", alternately with the before build"
}

func (u usage) scale(total, sample int) usage {
	k := float64(total) / float64(sample)
	return usage{
		wall:   time.Duration(float64(u.wall) * k),
		cpu:    time.Duration(float64(u.cpu) * k),
		rssKB:  u.rssKB,
		scaled: fmt.Sprintf("%d of %d tenants timed, scaled x%.0f", sample, total, k),
	}
}

// shellScript is the pipeline krender replaces, for the first n tenants:
// one envsubst per app file, and for injected apps the two yq calls and the
// sed that fills the fragment, as the profile's inject entry describes.
// Only the tools are processes; loops and names use bash built-ins.
func shellScript(f fleetgen.Fleet, n int) string {
	var b strings.Builder
	var names []string
	for _, v := range f.Vars(0) {
		names = append(names, "$"+v[0])
	}
	var seds []string
	for _, p := range fleetgen.Placeholders {
		seds = append(seds, fmt.Sprintf("-e 's/__%s__/%s/g'", p[0], p[2]))
	}
	fmt.Fprintf(&b, `#!/usr/bin/env bash
# The shell pipeline krender replaces: envsubst, sed and yq per app file per tenant.
set -euo pipefail
YQ=$1
WL='%s'
render_tenant() {
  local out=$1 app a
  mkdir -p "$out"
  for app in %s/*/; do
    app=${app%%/}; a=${app##*/}
    for k in %s; do
      envsubst "$WL" < "$app/$k.yaml" > "$out/$a-$k.yaml"
    done
    [ "$a" = %s ] && continue
    "$YQ" eval 'del(.spec.template.spec.hostAliases)' -i "$out/$a-deployment.yaml"
    sed %s %s | "$YQ" eval '.spec.template.spec.containers[0] += load("/dev/stdin")' -i "$out/$a-deployment.yaml"
  done
}
`, strings.Join(names, " "), fleetgen.AppsDir, strings.Join(fleetgen.Kinds, " "), f.App(f.Apps-1), strings.Join(seds, " "), fleetgen.Fragment)
	for k := range n {
		b.WriteString("(export")
		for _, v := range f.Vars(k) {
			fmt.Fprintf(&b, " %s=%s", v[0], v[1])
		}
		fmt.Fprintf(&b, "; render_tenant out/shell/%s)\n", f.Tenant(k))
	}
	return b.String()
}

// kustomizations turns krender's unhashed per-object output into one
// kustomization per tenant: the Deployments and Services as resources, each
// ConfigMap as a configMapGenerator with the same data.
func kustomizations(f fleetgen.Fleet, dir string) error {
	for k := range f.Tenants {
		td := filepath.Join(dir, f.Tenant(k))
		entries, err := os.ReadDir(td)
		if err != nil {
			return err
		}
		var b strings.Builder
		var gens strings.Builder
		b.WriteString("resources:\n")
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, "configmap-") {
				fmt.Fprintf(&b, "  - %s\n", name)
				continue
			}
			path := filepath.Join(td, name)
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			objs, err := manifest.Parse(manifest.NewSource(path, text))
			if err != nil {
				return err
			}
			o := objs[0]
			fmt.Fprintf(&gens, "  - name: %s\n    namespace: %s\n    files:\n", o.Name(), o.Namespace())
			data := manifest.Value(o.Node, "data")
			for i := 0; data != nil && i+1 < len(data.Content); i += 2 {
				key, val := data.Content[i].Value, data.Content[i+1].Value
				file := filepath.Join("data", o.Name(), key)
				if err := os.MkdirAll(filepath.Join(td, filepath.Dir(file)), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(td, file), []byte(val), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(&gens, "      - %s=%s\n", key, file)
			}
			if err := os.Remove(path); err != nil {
				return err
			}
		}
		b.WriteString("configMapGenerator:\n")
		b.WriteString(gens.String())
		if err := os.WriteFile(filepath.Join(td, "kustomization.yaml"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func kustomizeScript(f fleetgen.Fleet) string {
	return `#!/usr/bin/env bash
# One kubectl kustomize per tenant: the ConfigMap hash and the reference rewrite.
set -euo pipefail
KUBECTL=$1
mkdir -p out/kustomize
for d in kustomize/*/; do
  d=${d%/}
  "$KUBECTL" kustomize "$d" > "out/kustomize/${d##*/}.yaml"
done
`
}

// krenderChecks states what the measured krender did: every object
// rendered, which stages were active, and that one core gave the same bytes.
func krenderChecks(f fleetgen.Fleet, stream, serial string) []string {
	text, err := os.ReadFile(stream)
	if err != nil {
		return []string{"krender: " + err.Error()}
	}
	var out []string
	docs := countObjects(text)
	out = append(out, fmt.Sprintf("krender: %d objects rendered (want %d), %d bytes", docs, f.Objects(), len(text)))
	injected := bytes.Count(text, []byte("efs_ip="))
	want := (f.Apps - 1) * f.Tenants
	switch {
	case injected == 0:
		out = append(out, "krender: the EFS wrapper was NOT injected (this build has no inject stage): its time is not included")
	case injected/2 == want || injected == want:
		out = append(out, fmt.Sprintf("krender: EFS wrapper injected into %d Deployments", want))
	default:
		out = append(out, fmt.Sprintf("krender: EFS wrapper found %d times, want it in %d Deployments", injected, want))
	}
	if hashed := bytes.Count(text, []byte("-config-")); hashed == 0 {
		out = append(out, "krender: ConfigMap names are NOT hashed (this build has no hash stage): its time is not included")
	} else {
		out = append(out, "krender: ConfigMap names carry their content hash")
	}
	if same, err := sameFile(stream, serial); err == nil && same {
		out = append(out, "krender: output with GOMAXPROCS=1 is byte-identical")
	} else {
		out = append(out, "krender: output with GOMAXPROCS=1 DIFFERS")
	}
	return out
}

// checkExits are krender check's successful exit statuses: no error
// findings, and error findings.
var checkExits = []int{0, 1}

// findingsCheck runs krender check once more with --format json, unmeasured,
// and counts its findings by severity.
func findingsCheck(dir, krender string) string {
	text, code, err := checkJSON(dir, krender, fleetgen.AppsDir)
	if err != nil {
		return err.Error()
	}
	return countFindings(text, code)
}

// checkJSON runs `krender check -p PROFILE --format json ARGS...`,
// unmeasured, and returns its output and exit status.
func checkJSON(dir, krender string, args ...string) ([]byte, int, error) {
	cmd := exec.Command(krender, append([]string{"check", "-p", fleetgen.Profile, "--format", "json"}, args...)...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	text, err := cmd.Output()
	code := cmd.ProcessState.ExitCode()
	var exit *exec.ExitError
	if errors.As(err, &exit) && slices.Contains(checkExits, code) {
		err = nil
	}
	if err != nil {
		return nil, code, fmt.Errorf("krender check --format json %s FAILED: %v %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return text, code, nil
}

// countFindings states how many findings check's JSON holds, by severity,
// and whether its exit status agrees with them (1 exactly when an error was found).
func countFindings(text []byte, code int) string {
	var fs []struct {
		Severity string `json:"severity"`
	}
	if err := json.Unmarshal(text, &fs); err != nil {
		return "krender check --format json: unreadable output: " + err.Error()
	}
	counts := map[string]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	s := fmt.Sprintf("krender check: %d findings (%d errors, %d warnings, %d notes), exit %d",
		len(fs), counts["error"], counts["warning"], counts["info"], code)
	if (code == 1) != (counts["error"] > 0) {
		s += " — exit status DISAGREES with the findings"
	}
	return s
}

// hashCheck compares the hashed ConfigMap names of the first tenant.
func hashCheck(f fleetgen.Fleet, stream, kustomized string) string {
	kz, err := os.ReadFile(kustomized)
	if err != nil {
		return "kustomize: " + err.Error()
	}
	kr, err := os.ReadFile(stream)
	if err != nil {
		return "krender: " + err.Error()
	}
	names := func(text []byte) []string {
		var out []string
		for _, line := range strings.Split(string(text), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "name: "+f.App(0)+"-config") {
				out = append(out, strings.TrimPrefix(line, "name: "))
			}
		}
		return out
	}
	k, r := names(kz), names(kr)
	switch {
	case len(k) == 0:
		return "kustomize: no ConfigMap of " + f.App(0) + " in its output"
	case len(r) > 0 && r[0] == k[0]:
		return fmt.Sprintf("hash: krender and kustomize both name %s's ConfigMap %s", f.App(0), k[0])
	case len(r) > 0 && r[0] == f.App(0)+"-config":
		return fmt.Sprintf("hash: kustomize names %s's ConfigMap %s; this krender build does not hash", f.App(0), k[0])
	}
	return fmt.Sprintf("hash: names DIFFER: kustomize %v, krender %v", k[:1], r[:min(1, len(r))])
}

func sameFile(a, b string) (bool, error) {
	x, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}

// krenderGC is what krender sets for itself (cmd/internal/cli tuneGC), given to
// the floor and the profiled render so that they compare work, not GC tuning.
var krenderGC = []string{"GOGC=200", "GOMEMLIMIT=150MiB"}

// libraryMarshal is manifest.Marshal with go-yaml's Dumper for every object
// (not krender's yamlemit): the floor is what the YAML library alone costs.
func libraryMarshal(objs []*manifest.Object) ([]byte, error) {
	var b bytes.Buffer
	enc := manifest.NewEncoder(&b)
	enc.UseLibrary()
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			return nil, err
		}
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// floor parses the stream in and writes it out again with the same yqlib
// decoder and yaml encoder krender uses, on every core: the least any tool
// printing these objects the way yq does could spend.
func floor(in, out string) error {
	text, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	docs := splitDocs(text)
	parts := make([][]byte, len(docs))
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				objs, err := manifest.Parse(manifest.NewSource(in, docs[i]))
				if err == nil {
					parts[i], err = libraryMarshal(objs)
				}
				errs[i] = err
			}
		}()
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	for i, p := range parts {
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return w.Close()
}

// splitDocs cuts a yq-printed stream at its `---` lines: documents are
// printed with block indentation, so such a line never sits inside one.
func splitDocs(text []byte) [][]byte {
	var docs [][]byte
	start := 0
	for i := 0; i < len(text); {
		end := bytes.IndexByte(text[i:], '\n')
		if end < 0 {
			break
		}
		if string(text[i:i+end]) == "---" {
			docs = append(docs, text[start:i])
			start = i + end + 1
		}
		i += end + 1
	}
	return append(docs, text[start:])
}

// machine describes where the numbers were taken.
type machine struct {
	cpus, model, memory, goVersion, kernel string
	loadBefore, loadAfter                  string
	tools                                  []string
	date                                   string
	crd                                    crdCost
}

func describeMachine(c config) machine {
	m := machine{
		cpus:       strconv.Itoa(runtime.NumCPU()),
		goVersion:  runtime.Version(),
		kernel:     readTrim("/proc/sys/kernel/osrelease"),
		loadBefore: readTrim("/proc/loadavg"),
		date:       time.Now().UTC().Format("2006-01-02 15:04 UTC"),
	}
	for _, line := range strings.Split(readTrim("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			m.model = strings.TrimSpace(v)
			break
		}
	}
	for _, line := range strings.Split(readTrim("/proc/meminfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == "MemTotal" {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			m.memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
		}
	}
	version := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			return "unavailable"
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	m.tools = []string{
		"yq: " + version(c.yq, "--version"),
		"envsubst: " + version("envsubst", "--version"),
		"sed: " + version("sed", "--version"),
		"bash: " + version("bash", "--version"),
		"krender: " + version(c.krender, "version"),
	}
	if c.before != "" {
		m.tools = append(m.tools, "before ("+c.beforeName+"): "+version(c.before, "version"))
	}
	if c.kustomize {
		out, _ := exec.Command(c.kubectl, "version", "--client").CombinedOutput()
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "Kustomize Version") || strings.HasPrefix(line, "Client Version") {
				m.tools = append(m.tools, "kubectl "+strings.TrimSpace(line))
			}
		}
	}
	return m
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func (m machine) text() string {
	return fmt.Sprintf("machine: %s CPUs (%s), %s, %s, Linux %s; load average %s\n", m.cpus, m.model, m.memory, m.goVersion, m.kernel, m.loadBefore)
}

func dur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

func perObject(d time.Duration, objects int) string {
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond)/float64(objects))
}

// ratio is krender's time over another's, with the speed-up it means.
func ratio(kr, other time.Duration) string {
	if other == 0 {
		return "–"
	}
	r := float64(kr) / float64(other)
	if r < 1 {
		return fmt.Sprintf("%.4f (%.1f× faster)", r, 1/r)
	}
	return fmt.Sprintf("%.2f (%.2f× slower)", r, r)
}

func (r row) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nT=%d tenants, %d objects (load average %s)\n", r.tenants, r.objects, r.load)
	line := func(name string, u usage) {
		if u.wall == 0 {
			return
		}
		fmt.Fprintf(&b, "  %-22s wall %9s  cpu %9s  peak RSS %7s  %s\n", name, dur(u.wall), dur(u.cpu), mb(u.rssKB), u.scaled)
	}
	line("shell pipeline", r.shell)
	line("kubectl kustomize", r.kustomize)
	line("krender", r.krender)
	line("krender check", r.check)
	line("krender check +CRs", r.checkCRD)
	line("krender GOMAXPROCS=1", r.serial)
	line("floor (parse+emit)", r.floor)
	line("before: render", r.before.render)
	line("before: check", r.before.check)
	if r.before.render.wall > 0 {
		fmt.Fprintf(&b, "  render after/before wall %s  cpu %s\n", ratio(r.krender.wall, r.before.render.wall), ratio(r.krender.cpu, r.before.render.cpu))
	}
	if r.before.check.wall > 0 {
		fmt.Fprintf(&b, "  check after/before  wall %s  cpu %s\n", ratio(r.check.wall, r.before.check.wall), ratio(r.check.cpu, r.before.check.cpu))
	}
	fmt.Fprintf(&b, "  krender/shell      wall %s  cpu %s\n", ratio(r.krender.wall, r.shell.wall), ratio(r.krender.cpu, r.shell.cpu))
	fmt.Fprintf(&b, "  krender/kustomize  wall %s  cpu %s\n", ratio(r.krender.wall, r.kustomize.wall), ratio(r.krender.cpu, r.kustomize.cpu))
	fmt.Fprintf(&b, "  krender/floor      wall %s  cpu %s\n", ratio(r.krender.wall, r.floor.wall), ratio(r.krender.cpu, r.floor.cpu))
	fmt.Fprintf(&b, "  check/render       wall %s  cpu %s\n", ratio(r.check.wall, r.krender.wall), ratio(r.check.cpu, r.krender.cpu))
	if r.checkCRD.wall > 0 {
		fmt.Fprintf(&b, "  check+CRs/check    wall %s  cpu %s\n", ratio(r.checkCRD.wall, r.check.wall), ratio(r.checkCRD.cpu, r.check.cpu))
		fmt.Fprintf(&b, "  per custom resource wall %s  cpu %s  (check +CRs less check, one CRD compile included, over %d %ss)\n",
			extraPerCR(r.checkCRD.wall, r.check.wall, r.customs), extraPerCR(r.checkCRD.cpu, r.check.cpu, r.customs), r.customs, fleetgen.CustomKind)
	}
	fmt.Fprintf(&b, "  krender per object wall %s  cpu %s\n", perObject(r.krender.wall, r.objects), perObject(r.krender.cpu, r.objects))
	for _, c := range r.checks {
		fmt.Fprintf(&b, "  check: %s\n", c)
	}
	return b.String()
}

func profileMarkdown(tenants int, shares []share) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Where krender's time goes (pprof, T=%d)\n\n", tenants)
	b.WriteString("The same render, in-process under the CPU profiler (three renders to nowhere, krender's GC settings).\n")
	b.WriteString("Shares are cumulative, of all CPU samples: a stage's share includes the copies it makes, and\n")
	b.WriteString("collection work a function had to assist with counts in that function.\n\n")
	b.WriteString("| part | share of CPU |\n|---|---:|\n")
	for _, s := range shares {
		p := s.percent
		if p == "" {
			p = "–"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", s.part, p)
	}
	return b.String()
}

func summary(c config, rows []row, kept []string) string {
	var b strings.Builder
	b.WriteString("targets:\n")
	for _, v := range targets(rows) {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	fmt.Fprintf(&b, "written to %s\n", c.out)
	for _, t := range kept {
		fmt.Fprintf(&b, "  kept the hand-written section %q\n", t)
	}
	return b.String()
}

func (m machine) markdown(c config, rows []row) string {
	var b strings.Builder
	b.WriteString("# krender benchmarks\n\n")
	b.WriteString("Written by `make bench` (hack/bench). Each tool runs as a child process on the same generated\n")
	fmt.Fprintf(&b, "fleet: %d apps (a Deployment, a Service and a ConfigMap each; the first app mounts its ConfigMap with\n", c.apps)
	b.WriteString("`subPath`; the EFS wrapper is injected into all but the last) × T tenants. Wall time is elapsed time;\n")
	b.WriteString("CPU time is user+sys of the child and everything it waited for; peak RSS is the largest single process\n")
	b.WriteString("(wait4's ru_maxrss).\n\n")
	b.WriteString("- **shell**: the pipeline krender replaces, run per app file per tenant: GNU `envsubst` with the\n")
	b.WriteString("  profile's whitelist, then for injected apps `yq del(.spec.template.spec.hostAliases)` and\n")
	b.WriteString("  `sed` (placeholders) `| yq '.spec.template.spec.containers[0] += load(\"/dev/stdin\")'`. It does no hashing.\n")
	fmt.Fprintf(&b, "  Above %d tenants only the first %d are run and the times scaled linearly (each tenant is the same work);\n", c.sample, c.sample)
	b.WriteString("  peak RSS is not scaled.\n")
	b.WriteString("- **kustomize**: `kubectl kustomize`, once per tenant, doing only the ConfigMap hash and reference\n")
	b.WriteString("  rewrite: the tenant's rendered Deployments and Services as resources, one `configMapGenerator` per ConfigMap\n")
	b.WriteString("  with the same data. All tenants are run (one kustomization for the whole fleet is quadratic in kustomize).\n")
	fmt.Fprintf(&b, "- **krender**: `krender render -p fleet.yaml apps > out`, everything the profile asks, on all cores; median of %d runs.\n", c.runs)
	b.WriteString("  `GOMAXPROCS=1` is the same on one core.\n")
	b.WriteString("- **krender check**: `krender check -p fleet.yaml apps > out` on the same fleet and profile: the same render\n")
	fmt.Fprintf(&b, "  in memory with the linter as its last stage, findings printed as text; median of %d runs. Exit 1 (error\n", c.runs)
	b.WriteString("  findings) counts as success; the findings are counted once with `--format json` (see Checks).\n")
	b.WriteString("- **krender check + custom resources**: the same, given also one ServiceMonitor per app (`custom/`, a custom\n")
	b.WriteString("  resource modelled on the Prometheus operator's) and its CRD (`--crds crds`): `krender check -p fleet.yaml\n")
	fmt.Fprintf(&b, "  --crds crds apps custom`. Only this run reads them. One ServiceMonitor in %d misspells a field, so that\n", fleetgen.TypoEvery)
	b.WriteString("  the unknown-field findings prove each was validated (see Checks).\n")
	b.WriteString("- **floor**: the YAML library alone (yqlib's decoder, go-yaml's encoder with the same settings, not\n")
	b.WriteString("  krender's own emitter `yamlemit`) parsing krender's\n")
	fmt.Fprintf(&b, "  output and writing it again, on all cores, with krender's GC settings; median of %d runs.\n", c.runs)
	if c.before != "" {
		fmt.Fprintf(&b, "- **before**: %s, a previous build, running the same `render` and `check` command lines, alternately\n", c.beforeName)
		b.WriteString("  with this build's, round by round (see Before and after).\n")
	}
	b.WriteString("\n")
	b.WriteString("## Machine\n\n")
	fmt.Fprintf(&b, "- %s CPUs: %s\n- memory: %s\n- %s, Linux %s\n", m.cpus, m.model, m.memory, m.goVersion, m.kernel)
	for _, t := range m.tools {
		fmt.Fprintf(&b, "- %s\n", t)
	}
	fmt.Fprintf(&b, "- measured %s; load average before `%s`, after `%s` (a shared machine: other work competes for the cores)\n\n", m.date, m.loadBefore, m.loadAfter)
	b.WriteString("## Results\n\n")
	b.WriteString("| T | objects | tool | wall | CPU | peak RSS | wall / object | note |\n|---:|---:|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		objects := r.objects
		line := func(name string, u usage) {
			if u.wall == 0 {
				return
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s |\n", r.tenants, objects, name, dur(u.wall), dur(u.cpu), mb(u.rssKB), perObject(u.wall, objects), u.scaled)
		}
		line("shell", r.shell)
		line("kubectl kustomize", r.kustomize)
		line("**krender**", r.krender)
		line("krender check", r.check)
		objects = r.objects + r.customs
		line("krender check + custom resources", r.checkCRD)
		objects = r.objects
		line("krender, GOMAXPROCS=1", r.serial)
		line("floor (parse+emit)", r.floor)
		line("before: krender", r.before.render)
		line("before: krender check", r.before.check)
	}
	b.WriteString(chartMarkdown(c, rows))
	b.WriteString("\n## Ratios (krender's time over the other's)\n\n")
	b.WriteString("The last two columns are `krender check`'s time over `krender render`'s.\n\n")
	b.WriteString("| T | krender/shell wall | krender/shell CPU | krender/kustomize wall | krender/kustomize CPU | krender/floor wall | krender/floor CPU | check/render wall | check/render CPU |\n|---:|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.tenants,
			ratio(r.krender.wall, r.shell.wall), ratio(r.krender.cpu, r.shell.cpu),
			ratio(r.krender.wall, r.kustomize.wall), ratio(r.krender.cpu, r.kustomize.cpu),
			ratio(r.krender.wall, r.floor.wall), ratio(r.krender.cpu, r.floor.cpu),
			ratio(r.check.wall, r.krender.wall), ratio(r.check.cpu, r.krender.cpu))
	}
	b.WriteString(beforeMarkdown(c, rows))
	b.WriteString(crdMarkdown(m.crd, rows))
	b.WriteString("\n## Cost per object (krender)\n\n| T | objects | wall / object | CPU / object | peak RSS |\n|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s |\n", r.tenants, r.objects, perObject(r.krender.wall, r.objects), perObject(r.krender.cpu, r.objects), mb(r.krender.rssKB))
	}
	b.WriteString("\n## Targets\n\n")
	for _, v := range targets(rows) {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	b.WriteString("\n## Checks\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "- T=%d: load average when started: `%s`\n", r.tenants, r.load)
		for _, c := range r.checks {
			fmt.Fprintf(&b, "- T=%d: %s\n", r.tenants, c)
		}
	}
	return b.String()
}

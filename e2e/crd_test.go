//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
	sigsyaml "sigs.k8s.io/yaml"
)

// TestCRDCheckParity holds `krender check`'s verdicts on custom resources to
// the API server's. For each golden case testdata/check/crd-*/ it applies
// the case's CRDs (the profile's check.crds and any CRD in the render) to
// the server, renders the case with krender, sends every rendered object to
// the server (create, server-side dry run, strict field validation), and
// runs `krender check --format json` on the case. Then, object by object
// (findings are matched by their "Kind/name"):
//
//  1. an object krender reports no error for, the server accepts;
//  2. the path of every unknown-field finding is in the server's rejection
//     of that object as `unknown field "<path>"`;
//  3. an object with a crd-schema error, the server rejects;
//  4. an object the server rejects has an error finding from krender. The
//     one exception: the server knows no such kind in any version and
//     krender reported crd-missing (it had no CRD to judge by either).
//
// A case's args file is `check -p profile.yaml [--crds PATH]... TEMPLATES...`;
// the test runs `krender render` with the same arguments less --crds.
func TestCRDCheckParity(t *testing.T) {
	cases, err := filepath.Glob("../testdata/check/crd-*/args")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no testdata/check/crd-* cases")
	}
	bin := testtool.Krender(t)
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) { crdParity(t, bin, dir) })
	}
}

// crdFinding is one element of `krender check --format json`.
type crdFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Object   string `json:"object"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
}

func (f crdFinding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", f.File, f.Line, f.Column, f.Severity, f.Message, f.Rule)
}

// renderedObject is one document of krender's output.
type renderedObject struct {
	APIVersion string
	Kind       string
	Name       string
	JSON       []byte
}

func (o renderedObject) id() string { return o.Kind + "/" + o.Name }

func (o renderedObject) group() string {
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		return o.APIVersion[:i]
	}
	return ""
}

// serverVerdict is what a strict server-side dry-run create made of an object.
type serverVerdict struct {
	Accepted bool
	Message  string // the rejection, or warnings on acceptance
	NoKind   bool   // rejected by discovery: no such kind in that version
}

func (v serverVerdict) String() string {
	switch {
	case v.Accepted && v.Message != "":
		return "accepted (" + oneLine(v.Message) + ")"
	case v.Accepted:
		return "accepted"
	}
	return "rejected: " + oneLine(v.Message)
}

var unknownFieldPath = regexp.MustCompile(`unknown field "([^"]*)"`)

func crdParity(t *testing.T, bin, dir string) {
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(args))
	if len(fields) == 0 || fields[0] != "check" {
		t.Fatalf("%s/args: want `check -p profile.yaml TEMPLATES...`, got %q", dir, args)
	}
	rest := fields[1:]

	// The server side first: it does not depend on krender's check.
	objects := renderCase(t, bin, dir, renderArgs(rest))
	ns := newNamespace(t, "krender-crd")
	verdicts := applyCaseCRDs(t, dir, rest, objects)
	knownKinds := serverCRDKinds(t)
	var crs []renderedObject
	for _, o := range objects {
		if o.Kind == "CustomResourceDefinition" {
			crs = append(crs, o) // judged and applied above
			continue
		}
		if _, dup := verdicts[o.id()]; dup {
			t.Fatalf("%s appears twice in the render: give every fixture object its own name", o.id())
		}
		verdicts[o.id()] = dryRunCreate(t, ns, o)
		crs = append(crs, o)
	}

	findings, checkErr := runCheck(t, bin, dir, rest)
	if checkErr != nil {
		t.Errorf("krender check did not produce findings, so none of the server's verdicts below is matched: %v", checkErr)
	}
	byObject := map[string][]crdFinding{}
	for _, f := range findings {
		byObject[f.Object] = append(byObject[f.Object], f)
		if (f.Rule == "unknown-field" || f.Rule == "crd-schema" || f.Rule == "crd-missing") && (f.File == "" || f.Line <= 0) {
			t.Errorf("%s finding without a position: %s", f.Rule, f)
		}
		if _, ok := verdicts[f.Object]; !ok && strings.HasPrefix(f.Rule, "crd-") {
			t.Errorf("%s finding for %q, which is no custom resource in the render: %s", f.Rule, f.Object, f)
		}
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-34s %-6s %-40s %s\n", "OBJECT", "PARITY", "KRENDER", "SERVER")
	for _, o := range crs {
		v := verdicts[o.id()]
		problems := parityProblems(o, v, byObject[o.id()], knownKinds)
		for _, p := range problems {
			t.Errorf("%s: %s\n    server: %s\n    krender: %s", o.id(), p, v, describeFindings(byObject[o.id()]))
		}
		status := "ok"
		if len(problems) > 0 {
			status = "FAIL"
		}
		fmt.Fprintf(&table, "%-34s %-6s %-40s %s\n", o.id(), status, ruleList(byObject[o.id()]), v)
	}
	t.Logf("%s (namespace %s):\n%s", filepath.Base(dir), ns, table.String())
}

// parityProblems applies the four parity rules to one object.
func parityProblems(o renderedObject, v serverVerdict, fs []crdFinding, knownKinds map[string]bool) []string {
	var problems []string
	var errs, missing, schema []crdFinding
	for _, f := range fs {
		if f.Severity == "error" {
			errs = append(errs, f)
		}
		switch f.Rule {
		case "crd-missing":
			missing = append(missing, f)
		case "crd-schema":
			if f.Severity == "error" { // a deprecated version may be a warning
				schema = append(schema, f)
			}
		}
	}
	kindKnown := knownKinds[o.group()+"/"+o.Kind]

	// crd-missing: krender had no CRD; the server must have none either.
	if len(missing) > 0 && (v.Accepted || kindKnown) {
		problems = append(problems, fmt.Sprintf("krender found no CRD for %s %s, but the server has one", o.APIVersion, o.Kind))
	}
	exempt := len(missing) > 0 && !v.Accepted && v.NoKind && !kindKnown

	// Rules 1 and 4: no error from krender exactly when the server accepts.
	if len(errs) == 0 && !v.Accepted && !exempt {
		if v.NoKind && !kindKnown {
			problems = append(problems, "the server knows no kind "+o.Kind+" in "+o.APIVersion+" at all, and krender reported neither an error nor crd-missing")
		} else {
			problems = append(problems, "the server rejects it, but krender reports no error for it (a miss)")
		}
	}
	// Rule 2: every unknown field krender names is one the server names.
	for _, f := range fs {
		if f.Rule != "unknown-field" {
			continue
		}
		m := unknownFieldPath.FindStringSubmatch(f.Message)
		switch {
		case m == nil:
			problems = append(problems, "unknown-field finding without a quoted field path: "+f.Message)
		case v.Accepted:
			problems = append(problems, fmt.Sprintf("krender reports unknown field %q, but the server accepts the object", m[1]))
		case !strings.Contains(v.Message, `unknown field "`+m[1]+`"`):
			problems = append(problems, fmt.Sprintf("krender reports unknown field %q; the server's rejection does not name it", m[1]))
		}
	}
	// Rule 3: a schema violation krender reports, the server rejects.
	if len(schema) > 0 && v.Accepted {
		problems = append(problems, "krender reports crd-schema, but the server accepts the object")
	}
	// template-field: what the CRD leaves open, the server keeps; krender's
	// message says so, so the server must accept the object.
	for _, f := range fs {
		if f.Rule == "template-field" && !v.Accepted {
			problems = append(problems, "krender reports template-field (kept by the API server), but the server refuses the object")
		}
	}
	// And a deprecated version: krender warns exactly when the server does.
	warned := false
	for _, f := range fs {
		warned = warned || f.Rule == "api-deprecated"
	}
	if server := v.Accepted && strings.Contains(v.Message, " is deprecated"); server != warned {
		problems = append(problems, fmt.Sprintf("deprecation: the server warns %v, krender's api-deprecated %v", server, warned))
	}
	return problems
}

// renderArgs drops what only check takes (--crds PATH) from its arguments.
func renderArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--crds":
			i++
		case strings.HasPrefix(args[i], "--crds="):
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// renderCase runs `krender render` with the case's arguments. Until krender
// knows the profile key check.crds it rejects such profiles; the objects are
// then rendered from a copy of the case without that key, so that the
// server's half of the comparison still runs.
func renderCase(t *testing.T, bin, dir string, args []string) []renderedObject {
	t.Helper()
	stdout, stderr, err := runKrender(bin, dir, append([]string{"render"}, args...)...)
	if err != nil {
		t.Errorf("krender render %s failed: %v\n%s", strings.Join(args, " "), err, stderr)
		copyDir := filepath.Join(t.TempDir(), filepath.Base(dir))
		if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		stripProfileCheck(t, filepath.Join(copyDir, profileArg(t, args)))
		stdout, stderr, err = runKrender(bin, copyDir, append([]string{"render"}, args...)...)
		if err != nil {
			t.Fatalf("krender render without the profile's check key failed too: %v\n%s", err, stderr)
		}
		t.Logf("rendered from a copy of the case whose profile has no check key")
	}
	objs, err := splitObjects(stdout)
	if err != nil {
		t.Fatalf("krender render output: %v\n%s", err, stdout)
	}
	if len(objs) == 0 {
		t.Fatal("krender render printed no objects")
	}
	return objs
}

func profileArg(t *testing.T, args []string) string {
	t.Helper()
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-p" || args[i] == "--profile" {
			return args[i+1]
		}
	}
	t.Fatalf("args %q name no profile (-p)", args)
	return ""
}

func stripProfileCheck(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := sigsyaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "check")
	out, err := sigsyaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCheck runs `krender check --format json` on the case. Exit status 0 or
// 1 with a JSON array on stdout is a run; anything else is an error.
func runCheck(t *testing.T, bin, dir string, args []string) ([]crdFinding, error) {
	t.Helper()
	stdout, stderr, err := runKrender(bin, dir, append(append([]string{"check"}, args...), "--format", "json")...)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("krender check %s --format json: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	var fs []crdFinding
	if jerr := json.Unmarshal([]byte(stdout), &fs); jerr != nil {
		return nil, fmt.Errorf("krender check --format json printed no JSON findings (%v): %s\n%s", jerr, stdout, stderr)
	}
	return fs, nil
}

func runKrender(bin, dir string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// splitObjects reads a YAML stream as kubectl does.
func splitObjects(stream string) ([]renderedObject, error) {
	docs, err := testtool.KubectlDocs([]byte(stream))
	if err != nil {
		return nil, err
	}
	var objs []renderedObject
	for _, js := range docs {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(js, &head); err != nil {
			return nil, err
		}
		objs = append(objs, renderedObject{head.APIVersion, head.Kind, head.Metadata.Name, js})
	}
	return objs, nil
}

// applyCaseCRDs applies the CRD files the case gives krender (the profile's
// check.crds, any --crds argument) and the CRDs in its render, and waits
// until the server serves them.
func applyCaseCRDs(t *testing.T, dir string, args []string, objects []renderedObject) map[string]serverVerdict {
	t.Helper()
	var names []string
	apply := func(stdin string, applyArgs ...string) {
		out, errb, err := kubectlSplit(stdin, append([]string{"apply", "-o", "name"}, applyArgs...)...)
		if err != nil {
			t.Fatalf("kubectl apply %s: %v\n%s%s", strings.Join(applyArgs, " "), err, out, errb)
		}
		names = append(names, strings.Fields(out)...)
	}
	for _, p := range caseCRDPaths(t, dir, args) {
		apply("", "-R", "-f", p)
	}
	var inRender []renderedObject
	for _, o := range objects {
		if o.Kind == "CustomResourceDefinition" {
			inRender = append(inRender, o)
		}
	}
	// A CRD in the render is a checked object too: krender must flag
	// exactly those the server refuses. Refused ones are not applied.
	verdicts := map[string]serverVerdict{}
	for _, o := range inRender {
		v := dryRun(t, "apply", "", o) // apply: the CRD may be there from an earlier run
		verdicts[o.id()] = v
		if v.Accepted {
			apply(string(o.JSON), "-f", "-")
		}
	}
	if len(names) == 0 {
		t.Fatal("the case has no CRD the server accepts: neither check.crds in its profile nor a CustomResourceDefinition in its render")
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "customresourcedefinition.apiextensions.k8s.io/") {
			t.Fatalf("a CRD path of the case holds %s, which is no CustomResourceDefinition", n)
		}
	}
	out, errb, err := kubectlSplit("", append([]string{"wait", "--for=condition=Established", "--timeout=60s"}, names...)...)
	if err != nil {
		t.Fatalf("waiting for CRDs %v to be established: %v\n%s%s", names, err, out, errb)
	}
	return verdicts
}

// caseCRDPaths lists the CRD paths the case passes to krender check, as
// paths relative to the working directory of the test.
func caseCRDPaths(t *testing.T, dir string, args []string) []string {
	t.Helper()
	profile := filepath.Join(dir, profileArg(t, args))
	raw, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Check struct {
			CRDs []string `json:"crds"`
		} `json:"check"`
	}
	if err := sigsyaml.Unmarshal(raw, &p); err != nil {
		t.Fatalf("%s: %v", profile, err)
	}
	var paths []string
	for _, c := range p.Check.CRDs {
		paths = append(paths, filepath.Join(filepath.Dir(profile), c))
	}
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--crds" && i+1 < len(args):
			paths = append(paths, filepath.Join(dir, args[i+1]))
		case strings.HasPrefix(args[i], "--crds="):
			paths = append(paths, filepath.Join(dir, strings.TrimPrefix(args[i], "--crds=")))
		}
	}
	return paths
}

// serverCRDKinds is the set of "group/Kind" the server has CRDs for, in any
// version: with it an unserved version is told from an unknown kind.
func serverCRDKinds(t *testing.T) map[string]bool {
	t.Helper()
	var list struct {
		Items []struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
			} `json:"spec"`
		} `json:"items"`
	}
	kubectlJSON(t, &list, "get", "customresourcedefinitions")
	kinds := map[string]bool{}
	for _, c := range list.Items {
		kinds[c.Spec.Group+"/"+c.Spec.Names.Kind] = true
	}
	return kinds
}

// dryRunCreate sends one object as `kubectl create --dry-run=server
// --validate=strict` does: nothing is stored, so a reused server is fine.
func dryRunCreate(t *testing.T, ns string, o renderedObject) serverVerdict {
	t.Helper()
	return dryRun(t, "create", ns, o)
}

func dryRun(t *testing.T, verb, ns string, o renderedObject) serverVerdict {
	t.Helper()
	args := []string{verb, "--dry-run=server", "--validate=strict", "-o", "json", "-f", "-"}
	if ns != "" {
		args = append(args, "-n", ns)
	}
	_, errb, err := kubectlSplit(string(o.JSON), args...)
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("kubectl: %v", err)
		}
		return serverVerdict{Message: strings.TrimSpace(errb), NoKind: strings.Contains(errb, "no matches for kind")}
	}
	return serverVerdict{Accepted: true, Message: strings.TrimSpace(errb)}
}

// kubectlSplit is kubectl with stdout and stderr apart: a dry run prints the
// object on stdout and warnings or the rejection on stderr.
func kubectlSplit(stdin string, args ...string) (string, string, error) {
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func ruleList(fs []crdFinding) string {
	if len(fs) == 0 {
		return "-"
	}
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Severity+":"+f.Rule)
	}
	slices.Sort(rules)
	return strings.Join(slices.Compact(rules), ",")
}

func describeFindings(fs []crdFinding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	var lines []string
	for _, f := range fs {
		lines = append(lines, f.String())
	}
	return strings.Join(lines, "\n             ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestCRDParityRules: the comparison itself, on made-up verdicts, so that a
// failure of TestCRDCheckParity is krender's and not the test's.
func TestCRDParityRules(t *testing.T) {
	widget := renderedObject{APIVersion: "example.com/v1", Kind: "Widget", Name: "w"}
	widgetV2 := renderedObject{APIVersion: "example.com/v2", Kind: "Widget", Name: "w"}
	probe := renderedObject{APIVersion: "monitoring.example.net/v1", Kind: "Probe", Name: "p"}
	known := map[string]bool{"example.com/Widget": true}
	accepted := serverVerdict{Accepted: true}
	strict := serverVerdict{Message: `strict decoding error: unknown field "spec.maxReplica"`}
	invalid := serverVerdict{Message: `The Widget "w" is invalid: spec.tags[1]: Duplicate value: "blue"`}
	noKind := serverVerdict{Message: `no matches for kind "Widget" in version "example.com/v2"`, NoKind: true}
	noProbe := serverVerdict{Message: `no matches for kind "Probe" in version "monitoring.example.net/v1"`, NoKind: true}
	f := func(rule, severity, msg string) crdFinding {
		return crdFinding{Rule: rule, Severity: severity, File: "a.yaml", Line: 1, Column: 1, Object: "Widget/w", Message: msg}
	}
	unknown := func(path string) crdFinding {
		return f("unknown-field", "error", `unknown field "`+path+`": widgets.example.com v1 has no such field`)
	}
	for _, c := range []struct {
		name string
		o    renderedObject
		v    serverVerdict
		fs   []crdFinding
		ok   bool
	}{
		{"accepted, nothing found", widget, accepted, nil, true},
		{"accepted, a warning", widget, accepted, []crdFinding{f("crd-schema", "warning", "v1beta1 is deprecated")}, true},
		{"same unknown field", widget, strict, []crdFinding{unknown("spec.maxReplica")}, true},
		{"other unknown field", widget, strict, []crdFinding{unknown("spec.maxReplicas")}, false},
		{"unknown field without a path", widget, strict, []crdFinding{f("unknown-field", "error", "spec has no maxReplica")}, false},
		{"unknown field the server accepts", widget, accepted, []crdFinding{unknown("spec.port")}, false},
		{"schema violation", widget, invalid, []crdFinding{f("crd-schema", "error", "spec.tags[1]: duplicate")}, true},
		{"schema violation the server accepts", widget, accepted, []crdFinding{f("crd-schema", "error", "spec.port")}, false},
		{"a miss", widget, invalid, nil, false},
		{"a miss with a warning", widget, invalid, []crdFinding{f("crd-schema", "warning", "deprecated")}, false},
		{"unserved version", widgetV2, noKind, []crdFinding{f("crd-schema", "error", "example.com/v2 is not served")}, true},
		{"unserved version as crd-missing", widgetV2, noKind, []crdFinding{f("crd-missing", "info", "no CRD")}, false},
		{"no CRD anywhere", probe, noProbe, []crdFinding{f("crd-missing", "info", "no CRD")}, true},
		{"no CRD anywhere, nothing said", probe, noProbe, nil, false},
		{"crd-missing for a kind the server has", widget, accepted, []crdFinding{f("crd-missing", "info", "no CRD")}, false},
	} {
		got := parityProblems(c.o, c.v, c.fs, known)
		if (len(got) == 0) != c.ok {
			t.Errorf("%s: problems %q, want ok=%v", c.name, got, c.ok)
		}
	}
}

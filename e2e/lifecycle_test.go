//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/kube/lifecycle"
)

// TestKubeVersionParity holds `krender check`'s api-removed and
// api-deprecated findings to the API server's verdicts. The test server is
// a release (1.33) with default settings; every golden case
// testdata/check/api-*/ whose profile's kubeVersion names that release is
// rendered, and each rendered object is sent to the server (create,
// server-side dry run, strict field validation) in a fresh namespace.
// Then, object by object:
//
//  1. an object with an api-removed finding is refused as not served: "no
//     matches for kind" from kubectl's discovery. That holds for the
//     errors (removed, or not yet there) and for the warnings too (an
//     alpha or new beta API that a cluster serves only when enabled): the
//     test server runs with default settings;
//  2. an object the server refuses as not served has an api-removed finding;
//  3. an object with an api-deprecated finding is accepted with the
//     server's deprecation warning for its apiVersion and kind
//     ("Warning: v1 Endpoints is deprecated in v1.33+; ..."), and an object
//     the server warns about so has an api-deprecated finding;
//  4. an object without an api-removed finding is accepted: a fixture the
//     server refuses for any other reason (a missing required field) is
//     to be fixed, or it proves nothing.
//
// `krender.io/ignore` annotations are taken out of a copy of the case
// first, so that every object is judged; the table shows what the case as
// written silences.
func TestKubeVersionParity(t *testing.T) {
	server := serverRelease(t)
	dirs, err := filepath.Glob("../testdata/check/api-*")
	if err != nil {
		t.Fatal(err)
	}
	bin := testtool.Krender(t)
	ran := 0
	for _, dir := range dirs {
		args, kv, ok := lifecycleCase(t, dir)
		if !ok || kv != server {
			continue
		}
		ran++
		t.Run(filepath.Base(dir), func(t *testing.T) { kubeVersionParity(t, bin, dir, args) })
	}
	if ran < 2 {
		t.Fatalf("only %d testdata/check/api-* cases have kubeVersion %s, the server's release: api-removed and api-off-by-default should", ran, server)
	}
}

// serverRelease is the test server's Kubernetes release.
func serverRelease(t *testing.T) lifecycle.Version {
	t.Helper()
	var v struct {
		ServerVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	kubectlJSON(t, &v, "version")
	kv, err := lifecycle.ParseVersion(v.ServerVersion.GitVersion)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// lifecycleCase reads a check case's arguments (less "check") and its
// profile's kubeVersion; ok is false for a case without one.
func lifecycleCase(t *testing.T, dir string) (args []string, kv lifecycle.Version, ok bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		return nil, kv, false
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 || fields[0] != "check" {
		return nil, kv, false
	}
	args = fields[1:]
	prof, err := os.ReadFile(filepath.Join(dir, profileArg(t, args)))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		KubeVersion string `json:"kubeVersion"`
	}
	if err := sigsyaml.Unmarshal(prof, &p); err != nil || p.KubeVersion == "" {
		return nil, kv, false
	}
	kv, err = lifecycle.ParseVersion(p.KubeVersion)
	return args, kv, err == nil
}

var ignoreLine = regexp.MustCompile(`(?m)^[ \t]*krender\.io/ignore:.*\n`)

// withoutIgnores copies a case and takes every krender.io/ignore
// annotation out of its templates.
func withoutIgnores(t *testing.T, dir string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(cp, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if out := ignoreLine.ReplaceAll(raw, nil); len(out) != len(raw) {
			return os.WriteFile(path, out, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// deprecationWarning is kube-apiserver's warning for a deprecated API
// version, as kubectl prints it.
var deprecationWarning = regexp.MustCompile(`(?m)^Warning: (\S+) (\S+) is deprecated in v1\.\d+\+`)

// lifecycleVerdict is what the four rules compare for one object.
type lifecycleVerdict struct {
	removed, deprecated bool // krender's findings
	noKind              bool // the server refused it as not served
	accepted            bool
	warned              bool // the server's deprecation warning for the object's apiVersion and kind
}

func lifecycleProblems(v lifecycleVerdict) []string {
	var p []string
	if v.removed && !v.noKind {
		p = append(p, "krender reports api-removed, but the server does not refuse it as not served")
	}
	if v.noKind && !v.removed {
		p = append(p, "the server refuses it as not served (no matches for kind), but krender reports no api-removed")
	}
	if v.deprecated && !v.warned {
		p = append(p, "krender reports api-deprecated, but the server gives no deprecation warning")
	}
	if v.warned && !v.deprecated {
		p = append(p, "the server warns that the API is deprecated, but krender reports no api-deprecated")
	}
	if !v.removed && !v.accepted && !v.noKind {
		p = append(p, "the server refuses it for a reason other than its API: fix the fixture so that it proves something")
	}
	return p
}

func kubeVersionParity(t *testing.T, bin, dir string, args []string) {
	judged := withoutIgnores(t, dir)
	objects := renderCase(t, bin, judged, args)
	ns := newNamespace(t, "krender-kv")
	findings, err := runCheck(t, bin, judged, args)
	if err != nil {
		t.Fatal(err)
	}
	asWritten, err := runCheck(t, bin, dir, args)
	if err != nil {
		t.Fatal(err)
	}
	byObject := findingsByObject(findings)
	writtenBy := findingsByObject(asWritten)

	var table strings.Builder
	fmt.Fprintf(&table, "%-64s %-6s %-24s %-20s %s\n", "OBJECT (apiVersion)", "PARITY", "KRENDER", "AS WRITTEN", "SERVER")
	seen := map[string]bool{}
	for _, o := range objects {
		if seen[o.id()] {
			t.Fatalf("%s appears twice in the render: give every fixture object its own name", o.id())
		}
		seen[o.id()] = true
		sv := dryRunCreate(t, ns, o)
		fs := byObject[o.id()]
		v := lifecycleVerdict{accepted: sv.Accepted, noKind: !sv.Accepted && sv.NoKind}
		for _, f := range fs {
			v.removed = v.removed || f.Rule == "api-removed"
			v.deprecated = v.deprecated || f.Rule == "api-deprecated"
		}
		if sv.Accepted {
			for _, m := range deprecationWarning.FindAllStringSubmatch(sv.Message, -1) {
				v.warned = v.warned || (m[1] == o.APIVersion && m[2] == o.Kind)
			}
		}
		problems := lifecycleProblems(v)
		for _, p := range problems {
			t.Errorf("%s %s: %s\n    server: %s\n    krender: %s", o.APIVersion, o.id(), p, sv, describeFindings(fs))
		}
		status := "ok"
		if len(problems) > 0 {
			status = "FAIL"
		}
		written := "same"
		if w := ruleList(writtenBy[o.id()]); w != ruleList(fs) {
			written = w
		}
		fmt.Fprintf(&table, "%-64s %-6s %-24s %-20s %s\n", o.id()+" ("+o.APIVersion+")", status, ruleList(fs), written, sv)
	}
	for id, fs := range byObject {
		if !seen[id] {
			t.Errorf("findings for %q, which is not in the render: %s", id, describeFindings(fs))
		}
	}
	t.Logf("%s (namespace %s; KRENDER: krender.io/ignore taken out, AS WRITTEN: the case as it is):\n%s", filepath.Base(dir), ns, table.String())
}

func findingsByObject(fs []crdFinding) map[string][]crdFinding {
	m := map[string][]crdFinding{}
	for _, f := range fs {
		if f.Rule == "api-removed" || f.Rule == "api-deprecated" {
			m[f.Object] = append(m[f.Object], f)
		}
	}
	return m
}

// TestKubeVersionParityRules: the comparison itself, so that a failure of
// TestKubeVersionParity is krender's and not the test's.
func TestKubeVersionParityRules(t *testing.T) {
	for _, c := range []struct {
		name string
		v    lifecycleVerdict
		ok   bool
	}{
		{"removed and refused", lifecycleVerdict{removed: true, noKind: true}, true},
		{"removed but accepted", lifecycleVerdict{removed: true, accepted: true}, false},
		{"removed, refused for another reason", lifecycleVerdict{removed: true}, false},
		{"refused as not served, nothing said", lifecycleVerdict{noKind: true}, false},
		{"deprecated and warned", lifecycleVerdict{deprecated: true, accepted: true, warned: true}, true},
		{"deprecated, no warning", lifecycleVerdict{deprecated: true, accepted: true}, false},
		{"warned, nothing said", lifecycleVerdict{accepted: true, warned: true}, false},
		{"clean and accepted", lifecycleVerdict{accepted: true}, true},
		{"clean, refused for another reason", lifecycleVerdict{}, false},
	} {
		if got := lifecycleProblems(c.v); (len(got) == 0) != c.ok {
			t.Errorf("%s: problems %q, want ok=%v", c.name, got, c.ok)
		}
	}
	for _, c := range []struct {
		stderr, apiVersion, kind string
		want                     bool
	}{
		{"Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", "v1", "Endpoints", true},
		{"Warning: policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget", "policy/v1beta1", "PodDisruptionBudget", true},
		{"Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", "v1", "Service", false},
		{`Warning: metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: deprecated since v1.19`, "v1", "Pod", false},
	} {
		got := false
		for _, m := range deprecationWarning.FindAllStringSubmatch(c.stderr, -1) {
			got = got || (m[1] == c.apiVersion && m[2] == c.kind)
		}
		if got != c.want {
			t.Errorf("%q for %s %s: %v, want %v", c.stderr, c.apiVersion, c.kind, got, c.want)
		}
	}
}

// TestLifecycleMatchesServerDiscovery holds krender's whole lifecycle
// table to the test server's discovery: the server lists an apiVersion and
// kind as a resource exactly when lifecycle says a cluster of the server's
// release serves it by default (introduced, not removed, and not an alpha
// or new beta that must be enabled). The one exception: kinds that
// lifecycle has as served but the server lists in no version of their
// group are no resources (Scale, the *Options kinds, AdmissionReview) and
// are only counted.
func TestLifecycleMatchesServerDiscovery(t *testing.T) {
	kv := serverRelease(t)
	served := serverResources(t)
	groupKinds := map[string]bool{}
	for api := range served {
		groupKinds[groupOf(api.APIVersion)+"/"+api.Kind] = true
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-66s %-28s %s\n", "API", "KRENDER", "SERVER")
	compared, skipped := 0, 0
	for _, st := range lifecycle.All() {
		if !groupKinds[groupOf(st.APIVersion)+"/"+st.Kind] && st.ServedByDefaultIn(kv) {
			skipped++ // served, but no resource: Scale, PodExecOptions, AdmissionReview
			continue
		}
		compared++
		want := served[st.API]
		got := st.ServedByDefaultIn(kv)
		k := "served by default"
		switch {
		case st.RemovedBy(kv):
			k = "removed in " + st.Removed.String()
		case st.NotYetIn(kv):
			k = "not yet (" + st.Introduced.String() + ")"
		case !st.OnByDefault():
			k = "off by default"
		}
		s := "not served"
		if want {
			s = "served"
		}
		mark := ""
		if got != want {
			mark = "  <- MISMATCH"
			t.Errorf("%s: krender says %q for Kubernetes %s, the server's discovery: %s", st.API, k, kv, s)
		}
		if got || want || !st.RemovedBy(kv) { // the long tail of long-removed APIs agrees and is left out
			fmt.Fprintf(&table, "%-66s %-28s %s%s\n", st.API.String(), k, s, mark)
		}
	}
	var unknown []string
	for api := range served {
		if _, ok := lifecycle.Lookup(api.APIVersion, api.Kind); !ok && builtinGroup(api.APIVersion) {
			unknown = append(unknown, api.String())
		}
	}
	slices.Sort(unknown)
	t.Logf("Kubernetes %s: %d APIs compared, %d kinds that are no resource skipped; served but without lifecycle data: %s\n(APIs removed before %s and not served are left out of the table)\n%s",
		kv, compared, skipped, strings.Join(unknown, ", "), kv, table.String())
	if compared < 50 {
		t.Errorf("only %d APIs compared: discovery or the lifecycle table is not what the test expects", compared)
	}
}

// serverResources lists every apiVersion and kind the server serves as a
// resource (subresources left out), from discovery.
func serverResources(t *testing.T) map[lifecycle.API]bool {
	t.Helper()
	type resourceList struct {
		GroupVersion string `json:"groupVersion"`
		Resources    []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"resources"`
	}
	raw := func(path string, v any) {
		t.Helper()
		out, errb, err := kubectlSplit("", "get", "--raw", path)
		if err != nil {
			t.Fatalf("kubectl get --raw %s: %v\n%s", path, err, errb)
		}
		if err := sigsyaml.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var groups struct {
		Groups []struct {
			Versions []struct {
				GroupVersion string `json:"groupVersion"`
			} `json:"versions"`
		} `json:"groups"`
	}
	raw("/apis", &groups)
	paths := []string{"/api/v1"}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			paths = append(paths, "/apis/"+v.GroupVersion)
		}
	}
	served := map[lifecycle.API]bool{}
	for _, p := range paths {
		var rl resourceList
		raw(p, &rl)
		for _, r := range rl.Resources {
			if !strings.Contains(r.Name, "/") {
				served[lifecycle.API{APIVersion: rl.GroupVersion, Kind: r.Kind}] = true
			}
		}
	}
	return served
}

func groupOf(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// builtinGroup: a group lifecycle knows anything of, so not a CRD's.
func builtinGroup(apiVersion string) bool {
	g := groupOf(apiVersion)
	for _, st := range lifecycle.All() {
		if groupOf(st.APIVersion) == g {
			return true
		}
	}
	return false
}

package lifecycle

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/krender/krender/kube/kubescheme"
)

func v(major, minor int) Version { return Version{Major: major, Minor: minor} }

func TestKnownAPIs(t *testing.T) {
	for _, c := range []struct {
		api                             API
		introduced, deprecated, removed Version
		replacement                     API
	}{
		{API{"policy/v1beta1", "PodDisruptionBudget"}, v(1, 5), v(1, 21), v(1, 25), API{"policy/v1", "PodDisruptionBudget"}},
		{API{"autoscaling/v2beta2", "HorizontalPodAutoscaler"}, v(1, 12), v(1, 23), v(1, 26), API{"autoscaling/v2", "HorizontalPodAutoscaler"}},
		{API{"flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema"}, v(1, 26), v(1, 29), v(1, 32), API{"flowcontrol.apiserver.k8s.io/v1", "FlowSchema"}},
		{API{"extensions/v1beta1", "Ingress"}, v(1, 1), v(1, 14), v(1, 22), API{"networking.k8s.io/v1", "Ingress"}},
		{API{"batch/v1beta1", "CronJob"}, v(1, 8), v(1, 21), v(1, 25), API{"batch/v1", "CronJob"}},
		{API{"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition"}, v(1, 7), v(1, 16), v(1, 22), API{"apiextensions.k8s.io/v1", "CustomResourceDefinition"}},
		// the library names IngressClassList; the item kind is meant
		{API{"networking.k8s.io/v1beta1", "IngressClass"}, v(1, 18), v(1, 19), v(1, 22), API{"networking.k8s.io/v1", "IngressClass"}},
		{API{"resource.k8s.io/v1", "ResourceClaim"}, v(1, 34), Version{}, Version{}, API{}},
		{API{"apps/v1", "Deployment"}, v(1, 9), Version{}, Version{}, API{}},
		{API{"v1", "Pod"}, v(1, 0), Version{}, Version{}, API{}},
		// hand-written
		{API{"policy/v1beta1", "PodSecurityPolicy"}, Version{}, v(1, 21), v(1, 25), API{}},
		{API{"extensions/v1beta1", "PodSecurityPolicy"}, Version{}, Version{}, v(1, 16), API{"policy/v1beta1", "PodSecurityPolicy"}},
		{API{"apiregistration.k8s.io/v1beta1", "APIService"}, Version{}, Version{}, v(1, 22), API{"apiregistration.k8s.io/v1", "APIService"}},
	} {
		s, ok := Lookup(c.api.APIVersion, c.api.Kind)
		if !ok {
			t.Errorf("%s: not known", c.api)
			continue
		}
		if s.API != c.api || s.Introduced != c.introduced || s.Deprecated != c.deprecated || s.Removed != c.removed || s.Replacement != c.replacement {
			t.Errorf("%s: got introduced %s deprecated %s removed %s replacement %q, want %s %s %s %q",
				c.api, s.Introduced, s.Deprecated, s.Removed, s.Replacement, c.introduced, c.deprecated, c.removed, c.replacement)
		}
	}
}

func TestUnknownAPIs(t *testing.T) {
	for _, a := range []API{
		{"policy/v1beta1", "PodDisruptionBudgetList"}, // lists share their item's lifecycle
		{"policy/v1beta1", "DeleteOptions"},           // meta types carry none
		{"apps/v1", "WatchEvent"},
		{"example.com/v1", "Widget"}, // a custom resource
		{"v1", "NoSuchKind"},
		{"", ""},
	} {
		if s, ok := Lookup(a.APIVersion, a.Kind); ok {
			t.Errorf("%s: known as %+v", a, s)
		}
	}
}

func TestStatusAt(t *testing.T) {
	pdb, _ := Lookup("policy/v1beta1", "PodDisruptionBudget")
	for _, c := range []struct {
		at                          Version
		deprecated, removed, notYet bool
	}{
		{v(1, 4), false, false, true},
		{v(1, 5), false, false, false},
		{v(1, 20), false, false, false},
		{v(1, 21), true, false, false},
		{v(1, 24), true, false, false},
		{v(1, 25), true, true, false},
		{v(1, 33), true, true, false},
	} {
		if got := [3]bool{pdb.DeprecatedBy(c.at), pdb.RemovedBy(c.at), pdb.NotYetIn(c.at)}; got != [3]bool{c.deprecated, c.removed, c.notYet} {
			t.Errorf("at %s: deprecated, removed, not yet = %v, want %v %v %v", c.at, got, c.deprecated, c.removed, c.notYet)
		}
	}
	dep, _ := Lookup("apps/v1", "Deployment")
	if dep.DeprecatedBy(v(1, 99)) || dep.RemovedBy(v(1, 99)) || dep.NotYetIn(v(1, 9)) || !dep.NotYetIn(v(1, 8)) {
		t.Errorf("apps/v1 Deployment: %+v", dep)
	}
}

func TestReplacementAt(t *testing.T) {
	for _, c := range []struct {
		api    API
		at     Version
		want   API
		advice string
	}{
		{API{"policy/v1beta1", "PodDisruptionBudget"}, v(1, 33), API{"policy/v1", "PodDisruptionBudget"}, ""},
		// the named replacement, itself removed by 1.33, and its own
		{API{"flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema"}, v(1, 26), API{"flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema"}, ""},
		{API{"flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema"}, v(1, 33), API{"flowcontrol.apiserver.k8s.io/v1", "FlowSchema"}, ""},
		{API{"extensions/v1beta1", "PodSecurityPolicy"}, v(1, 20), API{"policy/v1beta1", "PodSecurityPolicy"}, ""},
		{API{"extensions/v1beta1", "PodSecurityPolicy"}, v(1, 33), API{}, "Pod Security Admission"},
		{API{"policy/v1beta1", "PodSecurityPolicy"}, v(1, 25), API{}, "Pod Security Admission"},
		// none named: the most stable version of the same kind served then
		{API{"node.k8s.io/v1beta1", "RuntimeClass"}, v(1, 33), API{"node.k8s.io/v1", "RuntimeClass"}, ""},
		{API{"events.k8s.io/v1beta1", "Event"}, v(1, 33), API{"events.k8s.io/v1", "Event"}, ""},
		{API{"resource.k8s.io/v1", "DeviceClass"}, v(1, 33), API{"resource.k8s.io/v1beta2", "DeviceClass"}, ""},
		// a GA version served by default comes before a beta one that is not
		{API{"networking.k8s.io/v1beta1", "ServiceCIDR"}, v(1, 33), API{"networking.k8s.io/v1", "ServiceCIDR"}, ""},
		{API{"admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy"}, v(1, 33), API{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"}, ""},
		// named, but not served yet in 1.33
		{API{"storage.k8s.io/v1alpha1", "VolumeAttributesClass"}, v(1, 33), API{"storage.k8s.io/v1beta1", "VolumeAttributesClass"}, ""},
		{API{"extensions/v1beta1", "DeploymentRollback"}, v(1, 33), API{}, ""},
	} {
		s, ok := Lookup(c.api.APIVersion, c.api.Kind)
		if !ok {
			t.Fatalf("%s: not known", c.api)
		}
		got, advice, ok := s.ReplacementAt(c.at)
		if got != c.want || ok != (c.want != API{}) || !strings.Contains(advice, c.advice) || (c.advice == "") != (advice == "") {
			t.Errorf("%s at %s: %q %q %v, want %q with advice containing %q", c.api, c.at, got, advice, ok, c.want, c.advice)
		}
	}
}

// TestOnByDefault: what kube-apiserver serves without --runtime-config.
// e2e/lifecycle_test.go holds the whole table to a 1.33 server's discovery.
func TestOnByDefault(t *testing.T) {
	for api, want := range map[API]bool{
		{"apps/v1", "Deployment"}:                                              true,
		{"v1", "Endpoints"}:                                                    true,
		{"policy/v1beta1", "PodDisruptionBudget"}:                              true,  // beta before 1.24
		{"extensions/v1beta1", "PodSecurityPolicy"}:                            true,  // hand-written, no introduction
		{"flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema"}:                 true,  // 1.23
		{"flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema"}:                 true,  // 1.26, the legacy exception
		{"flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration"}: true,  // 1.26, the legacy exception
		{"admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy"}:  false, // 1.28
		{"resource.k8s.io/v1beta2", "DeviceClass"}:                             false,
		{"networking.k8s.io/v1beta1", "ServiceCIDR"}:                           false,
		{"coordination.k8s.io/v1alpha2", "LeaseCandidate"}:                     false,
		{"storage.k8s.io/v1alpha1", "VolumeAttributesClass"}:                   false,
		{"admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicy"}:   false,
		{"resource.k8s.io/v1", "DeviceClass"}:                                  true,
	} {
		s, ok := Lookup(api.APIVersion, api.Kind)
		if !ok {
			t.Errorf("%s: not known", api)
			continue
		}
		if got := s.OnByDefault(); got != want {
			t.Errorf("%s (introduced %s): OnByDefault %v, want %v", api, s.Introduced, got, want)
		}
	}
	vap, _ := Lookup("admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy")
	if vap.ServedByDefaultIn(v(1, 33)) {
		t.Error("admissionregistration.k8s.io/v1beta1 served by default in 1.33")
	}
	pdb, _ := Lookup("policy/v1beta1", "PodDisruptionBudget")
	if !pdb.ServedByDefaultIn(v(1, 24)) || pdb.ServedByDefaultIn(v(1, 25)) {
		t.Error("policy/v1beta1 PodDisruptionBudget: served by default in 1.24 and not in 1.25")
	}
}

func TestFirstServedByDefault(t *testing.T) {
	for _, c := range []struct {
		api  API
		at   Version
		want API
		in   Version
	}{
		{API{"resource.k8s.io/v1beta2", "DeviceClass"}, v(1, 33), API{"resource.k8s.io/v1", "DeviceClass"}, v(1, 34)},
		{API{"storage.k8s.io/v1beta1", "VolumeAttributesClass"}, v(1, 31), API{"storage.k8s.io/v1", "VolumeAttributesClass"}, v(1, 34)},
		{API{"resource.k8s.io/v1", "DeviceClass"}, v(1, 34), API{}, Version{}}, // nothing later
		{API{"coordination.k8s.io/v1alpha2", "LeaseCandidate"}, v(1, 33), API{}, Version{}},
	} {
		s, _ := Lookup(c.api.APIVersion, c.api.Kind)
		r, in, ok := s.FirstServedByDefault(c.at)
		if r != c.want || in != c.in || ok != (c.want != API{}) {
			t.Errorf("%s after %s: %q in %s (%v), want %q in %s", c.api, c.at, r, in, ok, c.want, c.in)
		}
	}
}

// TestManualEntriesAbsentFromLibrary: a hand-written entry is only for an
// API no library ships; once one does, delete the entry.
func TestManualEntriesAbsentFromLibrary(t *testing.T) {
	lib := fromLibrary(kubescheme.Scheme())
	if len(lib) < 100 {
		t.Fatalf("the libraries gave only %d APIs", len(lib))
	}
	for _, m := range manual {
		if s, shipped := lib[m.API]; shipped {
			t.Errorf("%s is now in the library (%+v): delete its hand-written entry in manual.go", m.API, s)
		}
		if !strings.HasPrefix(m.Source, "https://kubernetes.io/") || m.Removed.IsZero() {
			t.Errorf("%s: a hand-written entry needs its source page and removal release", m.API)
		}
		if _, _, ok := m.ReplacementAt(m.Removed); !ok && m.Advice == "" {
			t.Errorf("%s: no replacement and no advice", m.API)
		}
	}
}

// TestLatestMatchesGoMod: Latest is the release of the k8s.io/api in go.mod.
func TestLatestMatchesGoMod(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/api v0\.(\d+)\.`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod does not require k8s.io/api")
	}
	if minor, _ := strconv.Atoi(string(m[1])); Latest() != v(1, minor) {
		t.Errorf("Latest is %s but go.mod has k8s.io/api v0.%d: update Latest", Latest(), minor)
	}
}

func TestBuiltIn(t *testing.T) {
	for g, want := range map[string]bool{
		"": true, "apps": true, "batch": true, "policy": true, "networking.k8s.io": true,
		"apiextensions.k8s.io": true, "apiregistration.k8s.io": true, "resource.k8s.io": true,
		"argoproj.io": false, "cert-manager.io": false, "monitoring.coreos.com": false,
		"gateway.networking.k8s.io": false, "snapshot.storage.k8s.io": false, "metrics.k8s.io": false,
	} {
		if got := BuiltIn(g); got != want {
			t.Errorf("BuiltIn(%q) = %v, want %v", g, got, want)
		}
	}
}

func TestBuiltinGroup(t *testing.T) {
	for g, want := range map[string]bool{
		"": true, "apps": true, "batch": true, "networking.k8s.io": true, "rbac.authorization.k8s.io": true,
		"apiextensions.k8s.io": true, "admissionregistration.k8s.io": true, "apiregistration.k8s.io": true,
		"gateway.networking.k8s.io": false, "cluster.x-k8s.io": false, "monitoring.coreos.com": false,
		"snapshot.storage.k8s.io": false, "beat.k8s.elastic.co": false,
	} {
		if got := BuiltinGroup(g); got != want {
			t.Errorf("BuiltinGroup(%q) = %v, want %v", g, got, want)
		}
	}
}

// TestPrerelease holds prerelease to the pattern it replaces.
func TestPrerelease(t *testing.T) {
	re := regexp.MustCompile(`^v[0-9]+(alpha|beta)[0-9]+$`)
	for _, s := range []string{
		"v1", "v2", "v1beta1", "v1alpha3", "v2beta2", "v10beta10", "v1beta", "vbeta1", "v1alpha", "1beta1",
		"v1beta1x", "v1gamma1", "", "v", "v1alpha1beta1", "v1betaalpha1", "v1beta1 ", "V1beta1", "v1beta-1",
	} {
		want := ""
		if m := re.FindStringSubmatch(s); m != nil {
			want = m[1]
		}
		if got := prerelease(s); got != want {
			t.Errorf("prerelease(%q) = %q, want %q", s, got, want)
		}
	}
	for _, st := range All() {
		g := st.APIVersion[strings.LastIndex(st.APIVersion, "/")+1:]
		if re.MatchString(g) != (prerelease(g) != "") {
			t.Errorf("%s: prerelease(%q) = %q", st.API, g, prerelease(g))
		}
	}
}

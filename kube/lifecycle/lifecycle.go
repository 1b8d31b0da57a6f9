// Package lifecycle knows in which Kubernetes release each built-in API (an
// apiVersion and kind) was introduced, deprecated and removed, so that a
// manifest the target cluster will refuse is caught before an upgrade rather
// than by the API server. The data is what the k8s.io/api types say about
// themselves (the methods prerelease-lifecycle-gen generates) in the
// library krender is built with, generated into zz_table.go by
// `go test ./kube/lifecycle -run TestTableMatchesLibrary -update`: a static
// array, so that the package links no k8s.io/api and costs nothing at
// start-up. The few APIs the library no longer ships are written by hand in
// manual.go, the generator's other input.
package lifecycle

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/krender/krender/kube/kubeapi"
)

// Latest is the Kubernetes release the k8s.io/api in go.mod describes
// (v0.35.x is 1.35): "already removed" means removed by this release.
// TestLatestMatchesGoMod keeps the two together. A function, so that no
// caller can change it.
func Latest() Version { return Version{Major: 1, Minor: 35} }

// Version is a Kubernetes minor release (kubeapi's, which the render
// engine reads without linking this package).
type Version = kubeapi.Version

// VersionPattern is what ParseVersion accepts.
const VersionPattern = kubeapi.VersionPattern

// ParseVersion reads a release as people write it ("1.33", "v1.33.4-eks-1234").
func ParseVersion(s string) (Version, error) { return kubeapi.ParseVersion(s) }

// API names one kind in one API version, as a manifest does.
type API struct {
	APIVersion string // "policy/v1beta1", or "v1" for the core group
	Kind       string
}

func (a API) String() string { return a.APIVersion + " " + a.Kind }

// Status is the lifecycle of one API. Zero versions are unknown or, for
// Deprecated and Removed, never.
type Status struct {
	API
	Introduced Version
	Deprecated Version
	Removed    Version
	// Replacement is the API to move to; zero when none is named.
	Replacement API
	// Advice is what to do instead when there is no replacement (hand-written entries only).
	Advice string
	// Source is the page a hand-written entry comes from; "" for the library's data.
	Source string
}

// RemovedBy reports whether the API is no longer served in release v.
func (s Status) RemovedBy(v Version) bool { return !s.Removed.IsZero() && s.Removed.Compare(v) <= 0 }

// DeprecatedBy reports whether the API is deprecated in release v (it may be removed too).
func (s Status) DeprecatedBy(v Version) bool {
	return !s.Deprecated.IsZero() && s.Deprecated.Compare(v) <= 0
}

// NotYetIn reports whether release v predates the API.
func (s Status) NotYetIn(v Version) bool {
	return !s.Introduced.IsZero() && v.Compare(s.Introduced) < 0
}

// ReplacementAt is the API to move to for release v. It follows the named
// replacement past those that are gone by v too (extensions/v1beta1
// PodSecurityPolicy -> policy/v1beta1 -> none); where none is named or the
// named one is not served in v, it takes the most stable version of the same
// group and kind that v serves (node.k8s.io/v1beta1 RuntimeClass names
// none; node.k8s.io/v1 is it). A version a cluster serves by default comes
// before one it must be told to serve (OnByDefault); the latter is returned
// only when v has nothing better (resource.k8s.io/v1beta2 DeviceClass in
// 1.33). ok is false when v serves no successor; advice then says what to
// do, where the data knows.
func (s Status) ReplacementAt(v Version) (r API, advice string, ok bool) {
	cur := s
	var offByDefault API // served in v, but only where the cluster enables it
	for range 10 {       // chains are two or three long; this only guards a cycle
		if cur.Replacement == (API{}) {
			break
		}
		next, known := Lookup(cur.Replacement.APIVersion, cur.Replacement.Kind)
		if !known {
			return cur.Replacement, "", true
		}
		if next.servedIn(v) {
			if next.OnByDefault() {
				return next.API, "", true
			}
			offByDefault = next.API
			break
		}
		if !next.RemovedBy(v) {
			break // introduced later than v
		}
		cur = next
	}
	for _, from := range []Status{s, cur} {
		if r, ok := sameKindServedIn(from.API, v); ok {
			if st, _ := Lookup(r.APIVersion, r.Kind); st.OnByDefault() {
				return r, "", true
			}
			if offByDefault == (API{}) {
				offByDefault = r
			}
		}
	}
	if offByDefault != (API{}) {
		return offByDefault, "", true
	}
	return API{}, cur.Advice, false
}

func (s Status) servedIn(v Version) bool { return !s.NotYetIn(v) && !s.RemovedBy(v) }

// betaOffByDefaultSince is the release from which a new beta API version is
// no longer served unless the cluster enables it (KEP-3136).
var betaOffByDefaultSince = Version{Major: 1, Minor: 24}

// legacyBetaOnByDefault lists the beta APIs introduced from 1.24 on that
// kube-apiserver served by default all the same: the flow-control betas
// (legacyBetaEnabledByDefaultResources in k8s.io/kubernetes
// pkg/controlplane/instance.go, 1.26 to 1.31).
// An array, not a map: the package runs no code at start-up.
var legacyBetaOnByDefault = [...]API{
	{"flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema"},
	{"flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration"},
}

// prerelease is "alpha" or "beta" for such a Kubernetes API version
// ("v1beta2", what `^v[0-9]+(alpha|beta)[0-9]+$` matches) and "" for any
// other ("v1", "v2").
func prerelease(version string) string {
	for _, level := range [...]string{"alpha", "beta"} {
		major, n, ok := strings.Cut(version, level)
		if ok && strings.HasPrefix(major, "v") && digits(major[1:]) && digits(n) {
			return level
		}
	}
	return ""
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// OnByDefault reports whether a cluster with kube-apiserver's default
// settings serves the API in the releases that have it. Alpha versions it
// never serves by default; beta versions introduced in 1.24 or later it
// serves only when enabled with --runtime-config (KEP-3136, "beta APIs off
// by default"), apart from legacyBetaOnByDefault; GA versions and the
// betas that came before 1.24 it serves. A manifest with an API that is
// off by default is refused with "no matches for kind" by a cluster that
// was not told to serve it.
func (s Status) OnByDefault() bool {
	gv, err := schema.ParseGroupVersion(s.APIVersion)
	if err != nil {
		return true
	}
	switch prerelease(gv.Version) {
	case "":
		return true
	case "alpha":
		return false
	}
	return s.Introduced.IsZero() || s.Introduced.Compare(betaOffByDefaultSince) < 0 || slices.Contains(legacyBetaOnByDefault[:], s.API)
}

// ServedByDefaultIn reports whether a cluster of release v with default
// settings serves the API.
func (s Status) ServedByDefaultIn(v Version) bool { return s.servedIn(v) && s.OnByDefault() }

// FirstServedByDefault is the first release after v that serves some
// version of s's group and kind by default, and that version; ok is false
// when no release the data knows does.
func (s Status) FirstServedByDefault(v Version) (r API, at Version, ok bool) {
	gv, err := schema.ParseGroupVersion(s.APIVersion)
	if err != nil {
		return API{}, Version{}, false
	}
	for _, st := range table[:] {
		api := st.API
		g, err := schema.ParseGroupVersion(api.APIVersion)
		if err != nil || api.Kind != s.Kind || g.Group != gv.Group || !st.OnByDefault() || st.Introduced.Compare(v) <= 0 {
			continue
		}
		if !ok || st.Introduced.Compare(at) < 0 || (st.Introduced == at && api.APIVersion < r.APIVersion) {
			r, at, ok = api, st.Introduced, true
		}
	}
	return r, at, ok
}

// sameKindServedIn finds the most stable other version of a's group that
// serves a's kind in release v: on by default before off, then GA before
// beta before alpha.
func sameKindServedIn(a API, v Version) (API, bool) {
	gv, err := schema.ParseGroupVersion(a.APIVersion)
	if err != nil {
		return API{}, false
	}
	var best API
	bestVersion, bestOn := "", false
	for _, st := range table[:] {
		api := st.API
		g, err := schema.ParseGroupVersion(api.APIVersion)
		if err != nil || api.Kind != a.Kind || g.Group != gv.Group || api == a || !st.servedIn(v) {
			continue
		}
		on := st.OnByDefault()
		if bestVersion == "" || (on && !bestOn) || (on == bestOn && version.CompareKubeAwareVersionStrings(g.Version, bestVersion) > 0) {
			best, bestVersion, bestOn = api, g.Version, on
		}
	}
	return best, best != (API{})
}

// Lookup returns what is known of apiVersion and kind; ok is false for
// custom resources and for built-in kinds whose types carry no lifecycle.
func Lookup(apiVersion, kind string) (Status, bool) {
	i, ok := slices.BinarySearchFunc(table[:], API{apiVersion, kind}, func(s Status, a API) int {
		return compareAPI(s.API, a)
	})
	if !ok {
		return Status{}, false
	}
	return table[i], true
}

// All lists every known API, ordered by apiVersion and kind.
func All() []Status { return slices.Clone(table[:]) }

// compareAPI is table's order: by apiVersion, then kind.
func compareAPI(a, b API) int {
	return cmp.Or(strings.Compare(a.APIVersion, b.APIVersion), strings.Compare(a.Kind, b.Kind))
}

// BuiltinGroup reports whether group is one of Kubernetes' own API groups
// ("" is the core group), whose fields the API server and its controllers
// read as written. Every other group is a custom resource's. The table is
// kubeapi's, generated from this package's data.
func BuiltinGroup(group string) bool { return kubeapi.BuiltinGroup(group) }

package lifecycle

import (
	"strings"
	"sync"
)

// BuiltIn reports whether the API server serves group itself (a group of
// k8s.io/api, apiextensions.k8s.io or apiregistration.k8s.io): an object of
// any other group is a custom resource. Built on first use from the same
// table, so that commands other than check pay nothing for it.
func BuiltIn(group string) bool { return groups()[group] }

var groups = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for a := range table() {
		g, _, found := strings.Cut(a.APIVersion, "/")
		if !found {
			g = "" // the core group: "v1"
		}
		out[g] = true
	}
	return out
})

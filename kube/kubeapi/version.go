// Package kubeapi holds the few facts about Kubernetes' own APIs that the
// render engine needs (a release number, which API groups are built in,
// how built-in lists merge) as plain Go values. The facts come from
// k8s.io/api, but as tables generated from it and held to it by tests, so
// that rendering does not link and initialise every API group: the lean
// krender binary starts in a few milliseconds.
package kubeapi

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// Version is a Kubernetes minor release; patch releases never change which
// APIs are served.
type Version struct{ Major, Minor int }

// VersionPattern is what ParseVersion accepts, as a regular expression that
// JSON Schema (ECMA-262) reads the same way.
const VersionPattern = `^v?1\.(0|[1-9][0-9]{0,2})(\.(0|[1-9][0-9]*)([-+][0-9A-Za-z.+-]*)?)?$`

// versionText is compiled on first use, not at start-up.
var versionText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(VersionPattern) })

// ParseVersion reads a release as people write it: "1.33", "v1.33",
// "1.33.4", or what `kubectl version` prints for a managed cluster
// ("v1.33.4-eks-1234"). The patch and anything after it are dropped.
func ParseVersion(s string) (Version, error) {
	m := versionText().FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("%q is not a Kubernetes release: write 1.minor, like \"1.33\" (v1.33 and 1.33.4 work too)", s)
	}
	minor, _ := strconv.Atoi(m[1]) // at most three digits
	return Version{1, minor}, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// IsZero reports an unset version (an API never deprecated, say).
func (v Version) IsZero() bool { return v == Version{} }

// Compare returns -1, 0 or +1 as v is older than, the same as or newer than w.
func (v Version) Compare(w Version) int {
	return cmp.Or(cmp.Compare(v.Major, w.Major), cmp.Compare(v.Minor, w.Minor))
}

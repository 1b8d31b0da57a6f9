package gc

import (
	"fmt"
	"strings"
)

// Missing is a ConfigMap or Secret with a hashed name that desired state
// names and the cluster lacks: the render that names it was applied only
// in part, or its objects were deleted since (a `kubectl replace --force`
// of a workload whose old revisions owned them).
type Missing struct {
	By        Owner  `json:"by"`
	Namespace string `json:"namespace"` // By's
	Object    Target `json:"object"`
}

func (m Missing) String() string {
	name := m.Object.Name
	if m.Object.Namespace != m.Namespace {
		name = m.Object.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %s/%s names %s %s, which does not exist: apply the render again", m.By.Kind, m.Namespace, m.By.Name, m.Object.Kind, name)
}

// hashAlphabet is what kustomize's hash suffix (and so krender's) is made
// of: ten hex digits with 0, 1, 3, a and e replaced by g, h, k, m and t, so
// that no suffix spells a word.
const hashAlphabet = "2456789bcdfghkmt"

// HashSuffixed reports whether name ends as a content-hash name does: "-"
// and ten characters of the hash's alphabet.
func HashSuffixed(name string) bool {
	i := len(name) - 11
	if i < 1 || name[i] != '-' {
		return false
	}
	for _, c := range name[i+1:] {
		if !strings.ContainsRune(hashAlphabet, c) {
			return false
		}
	}
	return true
}

// MaybeMissing are the hash-suffixed names that desired state in s names
// in namespace ns ("": any) and that are not among s's hashed objects, in
// referrer order, each name once: the cluster may hold them unlabelled
// (another tool's), so whether they exist is the cluster's to say.
func MaybeMissing(s *Snapshot, ns string) []Missing {
	have := make(map[Target]bool, len(s.Hashed))
	for _, h := range s.Hashed {
		have[h.Target] = true
	}
	seen := map[Target]bool{}
	var out []Missing
	for _, r := range s.Referrers {
		if r.Role != Pinned {
			continue
		}
		for _, t := range r.Refs {
			if t.Namespace == "" || ns != "" && t.Namespace != ns || have[t] || seen[t] || !HashSuffixed(t.Name) {
				continue
			}
			seen[t] = true
			out = append(out, Missing{By: r.Owner, Namespace: r.Namespace, Object: t})
		}
	}
	return out
}

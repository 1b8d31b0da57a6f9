// Package suggest is krender's one did-you-mean: variables, tenants,
// profile keys, object fields and flags all suggest the same way.
package suggest

import (
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Closest returns the candidate closest to name, ignoring case, if it is
// close enough to be a misspelling of it: at most two edits (three for
// names of nine characters or more), and fewer edits than name has
// characters, so that a short name is not "corrected" into an unrelated one.
// Ties go to the candidate that sorts first, so the answer never depends on
// the order of candidates.
func Closest(name string, candidates []string) string {
	best, bestD := "", 0
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if c == name {
			continue
		}
		d := levenshtein.ComputeDistance(strings.ToUpper(name), strings.ToUpper(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(name) >= 9 {
		limit = 3
	}
	if best == "" || bestD > limit || bestD >= len(name) {
		return ""
	}
	return best
}

// Hint is " (did you mean X?)" for the closest candidate, or "".
func Hint(name string, candidates []string) string {
	if s := Closest(name, candidates); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// Package mask keeps secret values (from --set-env and --set-file) out of
// what people read: Text masks them in messages, listings and diffs. It
// imports nothing of krender, so that the stages, the actions, fn's results
// and the command line mask alike.
package mask

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Mask is what a secret value becomes in text.
const Mask = "<redacted>"

// Text masks a fixed set of values wherever they occur.
type Text struct {
	r *strings.Replacer
}

// minLine is the shortest line of a multi-line value masked on its own: a
// message may quote one line of a certificate, but masking every short line
// ("}" of a JSON file) would garble unrelated text.
const minLine = 8

// minValue is the shortest value masked wherever it occurs. A shorter one
// is masked only where it stands quoted on its own: searching for it
// anywhere would garble every message (and it is hardly a secret).
const minValue = 4

// NewText masks values as written and as Go (%q) and JSON quoting spell
// them, longest first so that a value inside another is not half-masked.
func NewText(values []string) *Text {
	seen := map[string]bool{}
	var forms []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			forms = append(forms, s)
		}
	}
	for _, v := range values {
		if len(v) < minValue {
			add(strconv.Quote(v))
			continue
		}
		add(v)
		q := strconv.Quote(v)
		add(q[1 : len(q)-1])
		if j, err := json.Marshal(v); err == nil {
			add(string(j[1 : len(j)-1]))
		}
		if strings.Contains(v, "\n") {
			for _, line := range strings.Split(v, "\n") {
				if line = strings.TrimSpace(line); len(line) >= minLine {
					add(line)
				}
			}
		}
	}
	if len(forms) == 0 {
		return &Text{}
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mask)
	}
	return &Text{strings.NewReplacer(pairs...)}
}

// String masks s. A nil Text masks nothing.
func (t *Text) String(s string) string {
	if t == nil || t.r == nil {
		return s
	}
	return t.r.Replace(s)
}

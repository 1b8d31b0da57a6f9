package diff

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/workload"
)

// dataReasons are a ConfigMap's or Secret's keys that changed, each
// prefixed; a value is never quoted.
func (u *unit) dataReasons(old, new *object, prefix string) []string {
	keys := func(o *object) map[string]any {
		out := map[string]any{}
		m, _ := o.value.(map[string]any)
		for k := range dataKeys {
			if d, ok := m[k].(map[string]any); ok {
				for key, v := range d {
					out[key] = v
				}
			}
		}
		return out
	}
	a, b := keys(old), keys(new)
	var out []string
	for _, k := range unionKeys(a, b) {
		av, aok := a[k]
		bv, bok := b[k]
		switch {
		case !aok:
			out = append(out, prefix+"key "+k+" added")
		case !bok:
			out = append(out, prefix+"key "+k+" removed")
		case !equal(av, bv):
			out = append(out, prefix+"key "+k+" changed")
		}
	}
	return out
}

// templateReason says what a difference in a pod template does, in the
// words a reviewer looks for; skip is the template path's length.
func (u *unit) templateReason(l leaf, skip int) []string {
	p := l.path[skip:]
	if why, ok := u.renamed[str(l.old)]; ok && u.renamedTo[str(l.old)] == str(l.new) {
		return why
	}
	if l.order {
		return []string{"pod template " + dotted(p) + " order changed"}
	}
	if len(p) == 3 && p[0] == "metadata" && (p[1] == "annotations" || p[1] == "labels") {
		return []string{"pod template " + strings.TrimSuffix(p[1], "s") + " " + p[2] + " " + u.how(l)}
	}
	if why := u.inContainer(l, p); why != "" {
		return []string{why}
	}
	return []string{"pod template " + dotted(p) + ": " + u.fromTo(l)}
}

// inContainer words a change p (a path in the pod template) within a
// container, or of a whole container; "" for other changes.
func (u *unit) inContainer(l leaf, p []string) string {
	switch {
	case len(p) < 3 || p[0] != "spec" || !isContainerList(p[1]):
		return ""
	case len(p) == 3 && (l.old == nil || l.new == nil):
		return u.wholeContainer(p[1], strings.Trim(p[2], "[]"), l)
	case len(p) >= 4:
		return u.containerReason(l, p[3:])
	}
	return ""
}

// wholeContainer words a container added or removed (a renamed one is
// both), in list k: its image, when it has one and holds no secret.
func (u *unit) wholeContainer(k, name string, l leaf) string {
	what := map[string]string{"initContainers": "init container", "ephemeralContainers": "ephemeral container"}[k]
	if what == "" {
		what = "container"
	}
	if l.new == nil {
		return what + " " + name + " removed"
	}
	m, _ := l.new.(map[string]any)
	if image := str(m["image"]); image != "" && !u.holdsSecret(image) {
		return what + " " + name + " added (image " + image + ")"
	}
	return what + " " + name + " added"
}

// containerReason words a container's image and env changes; p is the
// path within the container. "" for other fields.
func (u *unit) containerReason(l leaf, p []string) string {
	switch {
	case len(p) == 1 && p[0] == "image":
		return u.image(l)
	case len(p) < 2 || p[0] != "env":
		return ""
	}
	name := strings.Trim(p[1], "[]")
	switch {
	case len(p) == 3 && p[2] == "value" && l.old != nil && l.new != nil:
		return "env " + name + ": " + u.quote(l.old) + " → " + u.quote(l.new)
	case len(p) == 2 && (l.old == nil || l.new == nil):
		return "env " + name + " " + u.how(l)
	}
	return "env " + name + " changed"
}

func isContainerList(k string) bool { return slices.Contains(workload.ContainerLists, k) }

// image says how an image changed: its tag (or digest) when the
// repository stays.
func (u *unit) image(l leaf) string {
	a, b := str(l.old), str(l.new)
	ar, at := splitImage(a)
	br, bt := splitImage(b)
	if l.old != nil && l.new != nil && ar == br {
		return "image " + ar + ": " + at + " → " + bt
	}
	return "image: " + u.fromTo(l)
}

func splitImage(ref string) (repo, tag string) {
	if i := strings.Index(ref, "@"); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	slash := strings.LastIndex(ref, "/")
	if i := strings.LastIndex(ref, ":"); i > slash {
		return ref[:i], ref[i+1:]
	}
	return ref, "latest"
}

// fieldReason says what changed outside a pod template; a value the head
// leaves out that the API server keeps (kept) says so.
func (u *unit) fieldReason(l leaf, kept map[string]string) string {
	path := dotted(l.path)
	if l.order {
		return path + " order changed"
	}
	if v, ok := kept[path]; ok && l.new == nil {
		return path + ": left out; the cluster keeps " + v
	}
	return path + ": " + u.fromTo(l)
}

func (u *unit) how(l leaf) string {
	switch {
	case l.old == nil:
		return "added"
	case l.new == nil:
		return "removed"
	}
	return "changed"
}

func (u *unit) fromTo(l leaf) string {
	if h := u.how(l); h != "changed" {
		return h
	}
	a, b := u.quote(l.old), u.quote(l.new)
	if a == "…" || b == "…" {
		return "changed"
	}
	return a + " → " + b
}

// quote is a short scalar as it is, else "…"; a secret's value never.
func (u *unit) quote(v any) string {
	switch v.(type) {
	case map[string]any, []any, nil:
		return "…"
	}
	s := fmt.Sprint(v)
	if len(s) > 60 || strings.ContainsAny(s, "\n") {
		return "…"
	}
	if u.holdsSecret(s) {
		return "…"
	}
	return s
}

// holdsSecret: s holds a value that reaches a Secret.
func (u *unit) holdsSecret(s string) bool {
	return slices.ContainsFunc(u.secretValues, func(v string) bool { return strings.Contains(s, v) })
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func dotted(p []string) string {
	var b strings.Builder
	for i, k := range p {
		if i > 0 && !strings.HasPrefix(k, "[") {
			b.WriteByte('.')
		}
		b.WriteString(k)
	}
	return b.String()
}

func hasPrefix(p, prefix []string) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

func dedupe(l []string) []string {
	var out []string
	for _, s := range l {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// shortValue is the API server's message with a long quoted value elided:
// `Invalid value: {...}: field is immutable`.
func shortValue(msg string) string {
	const invalid = "Invalid value: "
	rest, ok := strings.CutPrefix(msg, invalid)
	if !ok || len(rest) <= 80 {
		return msg
	}
	if i := strings.LastIndex(rest, ": "); i >= 0 {
		return invalid + "…" + rest[i:]
	}
	return msg
}

// unionKeys are the keys of a and b, sorted.
func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// storedLeaves are the pod template's written differences as the API
// server stores them, where it judged the template: a difference the
// stored forms lack (a default written out, a quantity respelled) is no
// reason to roll, and one they keep is said in their values. Else as
// written.
func storedLeaves(up verdict.Update, written []leaf) []leaf {
	if !up.Template || up.Stored == nil {
		return written
	}
	var out []leaf
	for _, l := range written {
		old, new, ok := up.Stored(l.path)
		switch {
		case !ok:
		case l.order:
			if sameOrder(old, new) {
				continue
			}
		case equal(old, new):
			continue
		default:
			l.old, l.new = old, new
		}
		out = append(out, l)
	}
	return out
}

// sameOrder: lists a and b keep their common items' names in one order.
func sameOrder(a, b any) bool {
	al, _ := a.([]any)
	bl, _ := b.([]any)
	an, bn := names(al), names(bl)
	return an != nil && bn != nil && slices.Equal(kept(an, bn), kept(bn, an))
}

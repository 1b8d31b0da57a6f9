package diff

import (
	"fmt"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render/contenthash"
)

// object is one rendered object, as the diff compares it.
type object struct {
	o                            *manifest.Object
	group, kind, namespace, name string // name: before the hash
	stored                       string // metadata.name as rendered
	hashed                       bool
	value                        any    // the object as data: comments, styles and key order gone
	k                            string // key(), made once
}

func newObject(o *manifest.Object) *object {
	obj := &object{o: o, group: o.Group(), kind: o.Kind(), namespace: o.Namespace(), stored: o.Name()}
	obj.name = obj.stored
	if n := manifest.ScalarAt(o.Node, "metadata", "labels", contenthash.NameLabel); n != "" && n != obj.stored {
		obj.name, obj.hashed = n, true
	}
	obj.k = obj.group + "/" + obj.kind + "/" + obj.namespace + "/" + obj.name
	return obj
}

// decode reads the object as data, once: only objects that differ are.
func (o *object) decode() error {
	if o.value != nil {
		return nil
	}
	if v, ok := plainValue(o.o.Node); ok {
		o.value = v
		return nil
	}
	var v any
	if err := o.o.Node.Decode(&v); err != nil {
		return fmt.Errorf("%s: %v", o.o.Pos(o.o.Node), err)
	}
	o.value = v
	return nil
}

// same reports whether two objects hold the same data, a hashed object's
// name aside (its hash follows the content, compared by itself): the
// nodes compared as data, without decoding them.
func same(a, b *object) bool {
	return sameNode(a.o.Node, b.o.Node, a.hashed && b.hashed, 0)
}

// sameNode compares two trees as data: mappings as key sets, scalars by
// resolved tag and value, comments and styles ignored; skipName leaves
// metadata.name out.
func sameNode(a, b *yaml.Node, skipName bool, depth int) bool {
	a, b = content(a), content(b)
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		// A value spelled otherwise (~ and null, 0x10 and 16) is left to
		// the comparison that reads both sides as kubectl does.
		return a.Value == b.Value && (sameTag(a, b) || a.ShortTag() == b.ShortTag())
	case yaml.SequenceNode:
		return sameSequence(a, b, depth)
	case yaml.MappingNode:
		return sameMapping(a, b, skipName, depth)
	}
	return false
}

// sameTag: two scalars of one explicit tag resolve alike, without
// ShortTag's resolving of an untagged value (whose quoting decides).
func sameTag(a, b *yaml.Node) bool { return a.Tag == b.Tag && a.Tag != "" && a.Tag != "!" }

// content is n with aliases followed and a document's wrapper removed.
func content(n *yaml.Node) *yaml.Node {
	for {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
}

func sameSequence(a, b *yaml.Node, depth int) bool {
	if len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i], false, depth+1) {
			return false
		}
	}
	return true
}

func sameMapping(a, b *yaml.Node, skipName bool, depth int) bool {
	if len(a.Content) != len(b.Content) {
		return false
	}
	for i := 0; i < len(a.Content); i += 2 {
		k := a.Content[i]
		if k.Kind != yaml.ScalarNode {
			return false // a key that is no string: compared as data
		}
		// Both sides mostly hold their keys in one order: a key at the same
		// place is found without a search (a mapping holds no key twice:
		// duplicateKeys).
		bv := b.Content[i+1]
		if b.Content[i].Value != k.Value {
			bv = manifest.Value(b, k.Value)
		}
		if bv == nil {
			return false
		}
		same := sameNode
		if depth == 0 && k.Value == "metadata" && skipName {
			same = func(a, b *yaml.Node, _ bool, _ int) bool { return sameMetadata(a, b) }
		}
		if !same(a.Content[i+1], bv, false, depth+1) {
			return false
		}
	}
	return true
}

// sameMetadata is sameNode of two metadata mappings but their names.
func sameMetadata(a, b *yaml.Node) bool {
	if a.Kind != yaml.MappingNode || b.Kind != yaml.MappingNode {
		return sameNode(a, b, false, 1)
	}
	count := func(m *yaml.Node) int {
		n := 0
		for i := 0; i < len(m.Content); i += 2 {
			if m.Content[i].Value != "name" {
				n++
			}
		}
		return n
	}
	if count(a) != count(b) {
		return false
	}
	for i := 0; i < len(a.Content); i += 2 {
		k := a.Content[i]
		if k.Value == "name" {
			continue
		}
		bv := manifest.Value(b, k.Value)
		if bv == nil || !sameNode(a.Content[i+1], bv, false, 2) {
			return false
		}
	}
	return true
}

// key is how the sides' objects are matched: group, kind, namespace and
// name (before the hash).
func (o *object) key() string { return o.k }

// comparable is the object's value with a hashed object's name left out:
// the hash follows the content, compared by itself.
func (o *object) comparable() any {
	if !o.hashed {
		return o.value
	}
	m, ok := o.value.(map[string]any)
	if !ok {
		return o.value
	}
	c := maps1(m)
	if md, ok := c["metadata"].(map[string]any); ok {
		md = maps1(md)
		delete(md, "name")
		c["metadata"] = md
	}
	return c
}

func maps1(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// leaf is one difference between two values: at path, from old to new
// (nil: absent); order says a list's items were reordered.
type leaf struct {
	path     []string
	old, new any
	order    bool
}

// leaves lists the differences between a and b, lists of named maps
// (containers, env, ports, volumes) matched by name.
func leaves(path []string, a, b any, out *[]leaf) {
	if equal(a, b) {
		return
	}
	if am, bm, ok := asMaps(a, b); ok {
		for _, k := range unionKeys(am, bm) {
			leaves(append(slices.Clip(path), k), am[k], bm[k], out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && namedLeaves(path, al, bl, out) {
		return
	}
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			leaves(append(slices.Clip(path), fmt.Sprintf("[%d]", i)), al[i], bl[i], out)
		}
		return
	}
	*out = append(*out, leaf{path: path, old: a, new: b})
}

// equal is reflect.DeepEqual(a, b), without reflection for the values a
// decoded object holds (maps, lists, strings, numbers, booleans): leaves
// asks it of every subtree on its way down.
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case string, bool, int, int64, uint64, float64:
		return a == b // a value of another type is unequal, as DeepEqual says
	case map[string]any:
		return equalMaps(a, b)
	case []any:
		return equalLists(a, b)
	}
	return reflect.DeepEqual(a, b)
}

// equalMaps is equal for a map a.
func equalMaps(a map[string]any, b any) bool {
	bm, ok := b.(map[string]any)
	if !ok || (a == nil) != (bm == nil) || len(a) != len(bm) {
		return false
	}
	if reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(bm).UnsafePointer() {
		return true // one map: equal as DeepEqual says, NaN or not
	}
	for k, av := range a {
		bv, ok := bm[k]
		if !ok || !equal(av, bv) {
			return false
		}
	}
	return true
}

// equalLists is equal for a list a.
func equalLists(a []any, b any) bool {
	bl, ok := b.([]any)
	if !ok || (a == nil) != (bl == nil) || len(a) != len(bl) {
		return false
	}
	if len(a) > 0 && &a[0] == &bl[0] {
		return true // one list
	}
	for i := range a {
		if !equal(a[i], bl[i]) {
			return false
		}
	}
	return true
}

// asMaps are a and b as maps when both are, or one is and the other is
// absent (a map added or removed: its keys).
func asMaps(a, b any) (am, bm map[string]any, ok bool) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if a == nil && bok {
		am, aok = map[string]any{}, true
	}
	if b == nil && aok {
		bm, bok = map[string]any{}, true
	}
	return am, bm, aok && bok
}

// namedLeaves compares two lists of named maps item by item, by name, and
// notes a new order of the items both hold; false when they are not such
// lists.
func namedLeaves(path []string, al, bl []any, out *[]leaf) bool {
	an, bn := names(al), names(bl)
	if an == nil || bn == nil {
		return false
	}
	byName := func(l []any, n []string, name string) any {
		if i := slices.Index(n, name); i >= 0 {
			return l[i]
		}
		return nil
	}
	all := slices.Clone(an)
	for _, n := range bn {
		if !slices.Contains(all, n) {
			all = append(all, n)
		}
	}
	whole := len(path) > 0 && (isContainerList(path[len(path)-1]) || path[len(path)-1] == "env")
	for _, n := range all {
		a, b := byName(al, an, n), byName(bl, bn, n)
		if whole && (a == nil || b == nil) { // a container or env var added or removed: one change, not each field
			*out = append(*out, leaf{path: append(slices.Clip(path), "["+n+"]"), old: a, new: b})
			continue
		}
		leaves(append(slices.Clip(path), "["+n+"]"), a, b, out)
	}
	if !slices.Equal(kept(an, bn), kept(bn, an)) {
		*out = append(*out, leaf{path: path, order: true})
	}
	return true
}

// kept are the names of a that b holds too, in a's order.
func kept(a, b []string) []string {
	var out []string
	for _, n := range a {
		if slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

// names are the items' names when every item is a map with a distinct
// string name, else nil.
func names(l []any) []string {
	if len(l) == 0 {
		return nil
	}
	var out []string
	for _, it := range l {
		m, ok := it.(map[string]any)
		if !ok {
			return nil
		}
		n, ok := m["name"].(string)
		if !ok || slices.Contains(out, n) {
			return nil
		}
		out = append(out, n)
	}
	return out
}

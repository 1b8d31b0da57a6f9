package diff

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/kube/lifecycle"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
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

// unit is one tenant's comparison.
type unit struct {
	v            verdict.Validator
	crds         crdSides          // the CRD files' definitions of each side
	kube         lifecycle.Version // the head profile's kubeVersion; zero: none
	diffs        bool              // Change.Diff wanted
	profile      string
	base, head   *unitObjects
	renamed      map[string][]string // a hashed object's base name → why it changed
	renamedTo    map[string]string   // base name → head name
	secretValues []string
	changedVars  []string
}

// compareUnit compares one tenant's two renders (an empty one where the
// tenant is on one side only).
func compareUnit(p *pairing, base, head *unitObjects) ([]Change, error) {
	u := &unit{v: p.d.Validator, diffs: p.d.Diffs, crds: p.crds, kube: p.kube, profile: p.profile, base: base, head: head, renamed: map[string][]string{}, renamedTo: map[string]string{}}
	u.secrets()
	u.variables()
	pairs := pairUp(base.objects, head.objects)
	if err := u.renames(pairs); err != nil {
		return nil, err
	}
	var out []Change
	for _, p := range pairs {
		c, err := u.change(p.old, p.new)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// pair is an object as each side has it (nil: not there).
type pair struct{ old, new *object }

// pairUp pairs the objects that differ by key, the head's order first,
// then what only the base has.
func pairUp(base, head []*object) []pair {
	baseBy, headBy := index(base), index(head)
	var pairs []pair
	for _, o := range head {
		if headBy[o.key()] != o {
			continue // one of two objects of a key: the last is compared (index)
		}
		old := baseBy[o.key()]
		if old != nil && same(old, o) {
			continue
		}
		pairs = append(pairs, pair{old, o})
	}
	for _, o := range base {
		if baseBy[o.key()] == o && headBy[o.key()] == nil {
			pairs = append(pairs, pair{o, nil})
		}
	}
	return pairs
}

// renames learns the hashed objects whose names changed, and why, before
// any workload: a workload's template names them.
func (u *unit) renames(pairs []pair) error {
	for _, p := range pairs {
		if p.old == nil || p.new == nil || !p.old.hashed || p.new.stored == p.old.stored {
			continue
		}
		if err := p.old.decode(); err != nil {
			return err
		}
		if err := p.new.decode(); err != nil {
			return err
		}
		u.renamed[p.old.stored] = u.dataReasons(p.old, p.new, p.new.kind+" "+p.new.name+": ")
		u.renamedTo[p.old.stored] = p.new.stored
	}
	return nil
}

// index is each key's object; of two objects of one key (check's
// duplicate-object), the last, which kubectl apply leaves in the cluster.
func index(objs []*object) map[string]*object {
	m := make(map[string]*object, len(objs))
	for _, o := range objs {
		m[o.key()] = o
	}
	return m
}

// secrets are the values of the variables that reach a Secret, on either
// side: a reason never quotes them.
func (u *unit) secrets() {
	for _, side := range []*unitObjects{u.base, u.head} {
		is := secretVars(side)
		for name, v := range side.vars {
			if v != "" && is(name) {
				u.secretValues = append(u.secretValues, v)
			}
		}
	}
}

// variables are the variables whose values differ between the sides.
func (u *unit) variables() {
	if u.base.vars == nil || u.head.vars == nil {
		return
	}
	u.changedVars = changedVars(u.base, u.head)
	sort.Strings(u.changedVars)
}

// variableReasons name the changed variables whose values the object's
// differences show, base value before and head value after: `only the
// tenant b's variable GREETING changed` where the tenant's own entry of the
// profile sets it, else `variable GREETING changed`.
func (u *unit) variableReasons(ls []leaf) []string {
	var out []string
	for _, name := range u.changedVars {
		was, is := u.base.vars[name], u.head.vars[name]
		for _, l := range ls {
			if was != "" && is != "" && strings.Contains(fmt.Sprint(l.old), was) && strings.Contains(fmt.Sprint(l.new), is) {
				out = append(out, u.variableReason(name))
				break
			}
		}
	}
	return out
}

func (u *unit) variableReason(name string) string {
	if u.head.own[name] || u.base.own[name] {
		return fmt.Sprintf("only the tenant %s's variable %s changed", u.head.tenant, name)
	}
	return fmt.Sprintf("variable %s changed", name)
}

// change is the verdict on one object that differs.
func (u *unit) change(old, new *object) (Change, error) {
	o := new
	if o == nil {
		o = old
	}
	c := Change{Profile: u.profile, Tenant: u.head.tenant, Kind: o.kind, Namespace: o.namespace, Name: o.name, Apply: OK}
	if u.head.tenant == "" {
		c.Tenant = u.base.tenant
	}
	if u.diffs {
		c.Diff = unified(old, new)
	}
	switch {
	case old == nil:
		c.Change, c.Reasons = Added, []string{"new in the head"}
		if refused := u.unserved(new); refused != nil {
			refusedOn(&c, refused)
			return c, nil
		}
		return c, u.created(&c, new)
	case new == nil:
		c.Change, c.Reasons = Removed, []string{"not in the head: kubectl apply leaves it in the cluster"}
		return c, nil
	}
	c.Change = Modified
	return c, u.modified(&c, old, new)
}

// modified words what changed in an object on both sides and judges it.
func (u *unit) modified(c *Change, old, new *object) error {
	if err := old.decode(); err != nil {
		return err
	}
	if err := new.decode(); err != nil {
		return err
	}
	var ls []leaf
	leaves(nil, old.comparable(), new.comparable(), &ls)
	c.Reasons = append(c.Reasons, u.variableReasons(ls)...)
	if isData(new) {
		c.Reasons = append(c.Reasons, u.dataReasons(old, new, "")...)
	}
	tpl := workload.TemplatePath(new.kind, new.group)
	isWorkload := tpl != nil && new.kind != "PodTemplate"
	up := verdict.Update{Refused: u.unserved(new)}
	if up.Refused == nil {
		var err error
		if up, err = u.judge(old, new, ls); err != nil {
			return err
		}
	}
	tplChanged := false
	var tplLeaves []leaf
	for _, l := range ls {
		switch {
		case isData(new) && len(l.path) > 0 && dataKeys[l.path[0]]:
		case isWorkload && hasPrefix(l.path, tpl):
			tplChanged = true
			tplLeaves = append(tplLeaves, l)
		default:
			c.Reasons = append(c.Reasons, u.fieldReason(l, up.Kept))
		}
	}
	c.Reasons = append(c.Reasons, u.templateReasons(up, tpl, tplLeaves)...)
	tplChanged = verdictOn(c, up, tplChanged)
	if isWorkload {
		c.Rollout = u.rollout(new, tplChanged)
	}
	return nil
}

// templateReasons word the pod template's differences, as stored where
// the API server judged it (written: as written).
func (u *unit) templateReasons(up verdict.Update, tpl []string, written []leaf) []string {
	var out []string
	for _, l := range storedLeaves(up, written) {
		out = append(out, u.templateReason(l, len(tpl))...)
	}
	return out
}

// verdictOn writes the API server's judgement into c: its refusals, and
// whether the pod template changed as stored (written: as written).
func verdictOn(c *Change, up verdict.Update, written bool) (changed bool) {
	changed = written
	if up.Known {
		switch {
		case written && !up.Template && c.Kind == "Rollout":
			c.Reasons = append(c.Reasons, "the pod template is the same once defaulted as the API server defaults a pod template (its ReplicaSet is kept)")
		case written && !up.Template:
			c.Reasons = append(c.Reasons, "the pod template is stored the same (the API server's defaults and canonical forms)")
		}
		changed = up.Template
	}
	refusedOn(c, up.Refused)
	c.Reasons = dedupe(c.Reasons)
	return changed
}

// unserved is kubectl's refusal of o where the cluster's release serves
// no such API (removed, or not there yet): it finds no mapping for the
// kind and sends nothing. The release is the head profile's kubeVersion,
// else the one whose API server code judges the rest (lifecycle.Latest).
// An API a release has but does not serve by default is no refusal: the
// cluster may enable it.
func (u *unit) unserved(o *object) []verdict.Problem {
	st, ok := lifecycle.Lookup(o.o.APIVersion(), o.kind)
	if !ok {
		return nil
	}
	kv, release := u.kube, "kubeVersion "+u.kube.String()
	if kv.IsZero() {
		kv = lifecycle.Latest()
		release = "judged as Kubernetes " + kv.String() + ", the profile sets no kubeVersion"
	}
	var why string
	switch {
	case st.RemovedBy(kv):
		why = "removed in Kubernetes " + st.Removed.String()
	case st.NotYetIn(kv):
		why = "served from Kubernetes " + st.Introduced.String()
	default:
		return nil
	}
	if r, _, ok := st.ReplacementAt(kv); ok {
		why += ", use " + r.String()
		if r.Kind == st.Kind {
			why = strings.TrimSuffix(why, " "+r.Kind)
		}
		if rs, known := lifecycle.Lookup(r.APIVersion, r.Kind); known && !rs.OnByDefault() {
			why += " where the cluster enables it"
		}
	}
	return []verdict.Problem{{Kind: verdict.Invalid, Msg: fmt.Sprintf("no matches for kind %q in version %q (%s; %s)", o.kind, o.o.APIVersion(), why, release)}}
}

// refusedOn marks c refused for the API server's problems, quoting each.
func refusedOn(c *Change, problems []verdict.Problem) {
	if len(problems) > 0 {
		c.Apply = Refused
	}
	for _, p := range problems {
		c.Reasons = append(c.Reasons, "refused: "+strings.TrimPrefix(p.Path+": "+shortValue(p.Msg), ": "))
	}
}

// created judges an object the head adds as the API server creates it.
func (u *unit) created(c *Change, o *object) error {
	problems, err := u.create(o)
	refusedOn(c, problems)
	return err
}

// create is the API server's refusal of creating o (an added object, a
// hashed object's new version), which needs its code (krender-check); a
// custom resource is judged by the head's CRD files, where they define it.
func (u *unit) create(o *object) ([]verdict.Problem, error) {
	switch {
	case verdict.IsCustom(o.o) && u.crds.head != nil:
		return u.crds.head.Create(o.o, o.namespace)
	case verdict.IsCustom(o.o):
		return nil, nil
	case u.v == nil:
		return nil, ErrNeedsValidator
	}
	return u.v.Create(o.o)
}

// judge asks the API server's code about an update, where it has to: a
// change the fields alone settle (labels and annotations, a mutable
// ConfigMap's data, a custom resource without CRDs) does not need it.
func (u *unit) judge(old, new *object, ls []leaf) (verdict.Update, error) {
	custom := verdict.IsCustom(new.o)
	if old.stored != new.stored { // a hashed object's new version: created, not updated
		refused, err := u.create(new)
		return verdict.Update{Refused: refused}, err
	}
	if u.v != nil && !custom {
		return u.v.Update(old.o, new.o)
	}
	if custom {
		return u.judgeCustom(old, new, ls)
	}
	for _, l := range ls {
		if !settledByFields(old, new, l) {
			return verdict.Update{}, ErrNeedsValidator
		}
	}
	return verdict.Update{}, nil
}

// judgeCustom judges a custom resource's update: its CRD's rules where
// the CRD files define it, and an Argo Rollout's pod template as its
// controller compares it (the API server's PodTemplate defaults), which
// needs the API server's code where the template differs as written.
func (u *unit) judgeCustom(old, new *object, ls []leaf) (verdict.Update, error) {
	var up verdict.Update
	if tpl := workload.TemplatePath(new.kind, new.group); new.kind == "Rollout" && tpl != nil {
		for _, l := range ls {
			if !hasPrefix(l.path, tpl) {
				continue
			}
			if u.v == nil {
				return verdict.Update{}, ErrNeedsValidator
			}
			var err error
			if up, err = u.v.Update(old.o, new.o); err != nil {
				return verdict.Update{}, err
			}
			break
		}
	}
	if u.crds.head != nil {
		cu, err := u.crds.head.Update(u.crds.base, old.o, new.o, new.namespace)
		if err != nil {
			return verdict.Update{}, err
		}
		up.Refused = cu.Refused
	}
	return up, nil
}

// settledByFields says a difference needs no API server to judge: an
// object's labels or annotations, a mutable ConfigMap's or Secret's data.
func settledByFields(old, new *object, l leaf) bool {
	switch {
	case len(l.path) >= 2 && l.path[0] == "metadata" && (l.path[1] == "labels" || l.path[1] == "annotations"):
		return true
	case isData(new) && len(l.path) > 0 && dataKeys[l.path[0]]:
		return !immutable(old) && !immutable(new)
	}
	return false
}

// rollout is a workload's fate when its template (as stored, or as
// written where the validator does not know the kind) changed.
func (u *unit) rollout(o *object, changed bool) string {
	if !changed {
		return None
	}
	switch o.kind {
	case "CronJob":
		return NextRun
	case "ReplicaSet", "ReplicationController":
		return None // its pods keep the template they were made from
	case "StatefulSet", "DaemonSet":
		if manifest.ScalarAt(o.o.Node, "spec", "updateStrategy", "type") == "OnDelete" {
			return OnDelete
		}
	}
	return Rolls
}

var dataKeys = map[string]bool{"data": true, "binaryData": true, "stringData": true}

func isData(o *object) bool {
	return o.group == "" && (o.kind == "ConfigMap" || o.kind == "Secret")
}

func immutable(o *object) bool {
	m, _ := o.value.(map[string]any)
	b, _ := m["immutable"].(bool)
	return b
}

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
	switch {
	case l.old == nil:
		return "added"
	case l.new == nil:
		return "removed"
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

// unified is the object's diff, base to head, every Secret's values
// redacted.
func unified(old, new *object) string {
	text := func(o *object) string {
		if o == nil {
			return ""
		}
		obj := o.o
		if isData(o) && o.kind == "Secret" {
			obj = redacted(obj)
		}
		b, err := manifest.MarshalObject(obj)
		if err != nil {
			return ""
		}
		return string(b)
	}
	name := "object"
	if o := new; o != nil || old != nil {
		if o == nil {
			o = old
		}
		name = o.kind + "/" + o.name
	}
	return unifiedText("base/"+name, "head/"+name, text(old), text(new))
}

// redacted is a Secret with every value of data and stringData replaced,
// and no comment: one beside a value often spells it out ("echo -n
// mypassword | base64").
func redacted(o *manifest.Object) *manifest.Object {
	c := o.Clone()
	manifest.Walk(c.Node, func(n *yaml.Node) { n.HeadComment, n.LineComment, n.FootComment = "", "", "" })
	for k := range dataKeys {
		m := manifest.Value(c.Node, k)
		if m == nil {
			continue
		}
		for i := 1; i < len(m.Content); i += 2 {
			m.Content[i] = manifest.String("<redacted>")
		}
	}
	return c
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

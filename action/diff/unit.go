package diff

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/kube/lifecycle"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
)

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
	// newKinds are the kinds whose CRD the head adds in this tenant.
	newKinds map[schema.GroupKind]bool
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
	u.addedKinds(pairs)
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
		if refused := append(u.unserved(new), u.unmapped(new)...); refused != nil {
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
		use := r.String()
		if r.Kind == st.Kind {
			use = r.APIVersion
		}
		why += ", use " + use
		if rs, known := lifecycle.Lookup(r.APIVersion, r.Kind); known && !rs.OnByDefault() {
			why += " where the cluster enables it"
		}
	}
	return []verdict.Problem{{Kind: verdict.Invalid, Msg: fmt.Sprintf("no matches for kind %q in version %q (%s; %s)", o.kind, o.o.APIVersion(), why, release)}}
}

// addedKinds learns the kinds whose CRD the head adds (the cluster has
// none before this apply), unless a CRD file defines them: the base's
// hold the head's too (lendCRDs), and a CRD file says what the cluster
// serves.
func (u *unit) addedKinds(pairs []pair) {
	for _, p := range pairs {
		if p.old != nil || p.new == nil {
			continue
		}
		k, ok := definedKind(p.new.o)
		if !ok {
			continue
		}
		if u.crds.base != nil {
			if _, known := u.crds.base.Scope(k); known {
				continue
			}
		}
		if u.newKinds == nil {
			u.newKinds = map[schema.GroupKind]bool{}
		}
		u.newKinds[k] = true
	}
}

// unmapped is kubectl's refusal of o, a custom resource the head adds,
// where the same apply creates its CRD: kubectl maps every object to its
// API before it applies any, and finds none for o's kind yet.
func (u *unit) unmapped(o *object) []verdict.Problem {
	if !u.newKinds[schema.GroupKind{Group: o.group, Kind: o.kind}] || !verdict.IsCustom(o.o) {
		return nil
	}
	return []verdict.Problem{{Kind: verdict.Invalid, Msg: fmt.Sprintf("no matches for kind %q in version %q: its CustomResourceDefinition is new in this apply, and kubectl maps every object before it applies any (apply the CRD first; a second apply creates it)", o.kind, o.o.APIVersion())}}
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

// Package contenthash gives each ConfigMap and Secret that a pod of the render
// consumes a name that changes with its content, kustomize's `name-<hash>`,
// and rewrites every reference to it, so that new configuration rolls the
// pods that use it. The others keep their names: software may read them by
// name, and a new name would roll nothing. The `annotation` mode keeps names
// and stamps the pod templates instead.
//
// The cost is linear: one pass hashes and indexes the ConfigMaps and Secrets
// by (namespace, kind, name), a second walks each object's reference fields
// once (refs.Table) and looks every name up in that index.
package contenthash

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
	"sigs.k8s.io/kustomize/api/hasher"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
	"github.com/krender/krender/render/contenthash/refs"
)

// Modes, as the profile's hash.mode and the krender.io/hash annotation spell them.
const (
	Suffix     = "suffix"     // name-<hash> when consumed or forced, references rewritten (the default)
	Annotation = "annotation" // name kept; pod templates get ConfigHashKey
	Off        = "off"        // left alone
)

var modes = []string{Suffix, Annotation, Off}

// StageName marks the nodes this stage makes (manifest.Object.Made).
const StageName = "contenthash"

// ConfigHashKey is the pod-template annotation of the annotation mode: a hash
// over the data of the ConfigMaps and Secrets the pods use, so a change rolls
// them (Helm's checksum/config idiom, over data only: labels and chart
// versions do not roll anything).
const ConfigHashKey = manifest.DirectivePrefix + "config-hash"

// Directive is the per-object override, krender.io/hash.
const Directive = "hash"

// maxName is the longest name Kubernetes accepts for a ConfigMap or Secret.
const maxName = 253

// Stage is the hashing stage, built once per run.
type Stage struct {
	mode  string
	table *refs.Table
	gc    bool // the profile's hash.gc: old versions are krender gc's to delete
}

// New reads the profile's hash section.
func New(p profiles.Hash) (*Stage, error) {
	st := &Stage{mode: Suffix, gc: p.GC != nil && *p.GC}
	if p.Mode.Value != "" {
		if !validMode(p.Mode.Value) {
			return nil, filepos.Errorf(p.Mode.Pos, "hash mode %q: want one of %s", p.Mode.Value, strings.Join(modes, ", "))
		}
		st.mode = p.Mode.Value
	}
	entries := refs.Builtin()
	var errs filepos.List
	for _, r := range p.References {
		entry := firstKnown(r.Kind.Pos, r.Group.Pos, r.Path.Pos, r.To.Pos)
		switch {
		case r.Kind.Value == "":
			errs = append(errs, filepos.Errorf(entry, "hash reference needs a kind (the kind of the object holding the field)"))
		case r.To.Value != refs.ConfigMap && r.To.Value != refs.Secret:
			errs = append(errs, filepos.Errorf(firstKnown(r.To.Pos, entry), "hash reference to %q: want to: ConfigMap or to: Secret", r.To.Value))
		default:
			if _, err := manifest.SplitPath(r.Path.Value); err != nil {
				errs = append(errs, filepos.Errorf(firstKnown(r.Path.Pos, entry), "%v", err))
			}
		}
		// A field the user lists is one something reads the object through.
		entries = append(entries, refs.Ref{Kind: r.Kind.Value, Group: r.Group.Value, Path: r.Path.Value, To: r.To.Value, Consumes: true, Pos: entry})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	t, err := refs.Compile(entries)
	if err != nil {
		return nil, err
	}
	st.table = t
	return st, nil
}

func validMode(m string) bool {
	for _, v := range modes {
		if v == m {
			return true
		}
	}
	return false
}

func firstKnown(ps ...filepos.Pos) filepos.Pos {
	for _, p := range ps {
		if p.IsKnown() {
			return p
		}
	}
	return filepos.Pos{}
}

type key struct{ ns, kind, name string }

// target is one ConfigMap or Secret of the render.
type target struct {
	pos     filepos.Pos
	mode    string
	sum     string // content hash; "" when off
	newName string
}

// Apply hashes s in place.
func (st *Stage) Apply(s *manifest.Set) error {
	found, ends, consumed := st.references(s)
	index := map[key]*target{}
	byName := map[key][]*target{} // ns "": for cluster-scoped referrers
	var renamed map[key]*target
	var errs filepos.List
	for _, o := range s.Objects {
		if err := s.Stopped(); err != nil {
			return err
		}
		t, k, err := st.hashObject(s, o, consumed)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if t == nil {
			continue
		}
		if first, dup := index[k]; dup {
			errs = append(errs, filepos.Errorf(o.Pos(o.Node), "%s %q is rendered twice in namespace %s (first at %s); references to it would be ambiguous",
				k.kind, k.name, k.ns, first.pos))
			continue
		}
		index[k] = t
		o.ContentHashed = t.mode != Off
		if t.mode == Suffix {
			if renamed == nil {
				renamed = map[key]*target{}
			}
			renamed[k] = t
		}
		nk := key{kind: k.kind, name: k.name}
		byName[nk] = append(byName[nk], t)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	start := 0
	for i, o := range s.Objects {
		if err := s.Stopped(); err != nil {
			return err
		}
		st.rewrite(s, o, found[start:ends[i]], index, byName)
		start = ends[i]
	}
	if renamed != nil && s.Wants(ruleid.OldNameText) {
		warnOldNames(s, renamed)
	}
	return nil
}

// references walks every object's reference fields once, before anything is
// renamed: what they name decides what may be renamed. Object i's
// references are found[ends[i-1]:ends[i]] (one slice for all: fewer
// allocations on big renders).
func (st *Stage) references(s *manifest.Set) (found []refs.Found, ends []int, consumed map[key]bool) {
	ends = make([]int, len(s.Objects))
	consumed = map[key]bool{}
	for i, o := range s.Objects {
		ns := s.NamespaceOf(o)
		st.table.Each(o, func(f refs.Found) {
			found = append(found, f)
			if f.Ref.Consumes {
				consumed[key{refNamespace(f, ns), f.Ref.To, f.Name.Value}] = true
			}
		})
		ends[i] = len(found)
	}
	return found, ends, consumed
}

// hashObject hashes one ConfigMap or Secret and renames it in suffix mode.
// Unless forced by its annotation, one that nothing consumes keeps its name
// (as if off): a new name would roll nothing, and whatever reads it by name
// would lose it.
func (st *Stage) hashObject(s *manifest.Set, o *manifest.Object, consumed map[key]bool) (*target, key, *filepos.Error) {
	kind := o.Kind()
	mode, set, hashed, err := st.modeOf(s, o)
	if !hashed || err != nil {
		return nil, key{}, err
	}
	nameNode := manifest.Lookup(o.Node, "metadata", "name")
	if nameNode == nil || nameNode.Kind != yaml.ScalarNode || nameNode.Value == "" {
		return nil, key{}, nil // generateName, or invalid: the API server will say so
	}
	name := nameNode.Value
	t := &target{pos: o.Pos(o.Node), mode: mode, newName: name}
	k := key{s.NamespaceOf(o), kind, name}
	if mode == Suffix && !set && !consumed[k] {
		noteKeepsName(s, o, nameNode)
		t.mode = Off
	}
	if t.mode == Off {
		return t, k, nil
	}
	if err := o.CheckNodes(); err != nil {
		return nil, k, err // kustomize's hasher copies what aliases name
	}
	sum, serr := Sum(o.Node)
	if serr != nil {
		return nil, k, filepos.Errorf(o.Pos(o.Node), "cannot hash %s %q: %v", kind, name, serr)
	}
	t.sum = sum
	if mode == Suffix {
		if err := t.rename(o, nameNode); err != nil {
			return nil, k, err
		}
		if st.gc {
			setNoPrune(o)
		}
	}
	return t, k, nil
}

// noteKeepsName says why o, which no pod consumes, keeps its name n.
func noteKeepsName(s *manifest.Set, o *manifest.Object, n *yaml.Node) {
	if !s.Wants(ruleid.HashKeepsName) { // the message is built only to be read
		return
	}
	s.Note(o, ruleid.HashKeepsName, filepos.Info, o.Pos(n), fmt.Sprintf("%s %q keeps its name: no pod in this render consumes it, so a new name would roll nothing, "+
		"and software that reads it by name keeps working (annotate it %s%s: suffix to rename it anyway, or \"off\" to silence this)",
		o.Kind(), n.Value, manifest.DirectivePrefix, Directive))
}

// modeOf is o's hashing mode: its annotation's, else the profile's. hashed
// is false for objects other than ConfigMaps and Secrets, which get a
// warning when annotated.
func (st *Stage) modeOf(s *manifest.Set, o *manifest.Object) (mode string, set, hashed bool, err *filepos.Error) {
	kind := o.Kind()
	mode, modeNode, set := o.Directive(Directive)
	if kind != refs.ConfigMap && kind != refs.Secret || o.Group() != "" {
		if set {
			s.Note(o, ruleid.HashNotApplicable, filepos.Warning, o.Pos(modeNode), fmt.Sprintf("%s%s only applies to ConfigMaps and Secrets; ignored on this %s",
				manifest.DirectivePrefix, Directive, kind))
		}
		return "", set, false, nil
	}
	if !set {
		return st.mode, set, true, nil
	}
	if !validMode(mode) {
		_, v := manifest.KeyValue(manifest.Lookup(o.Node, "metadata", "annotations"), manifest.DirectivePrefix+Directive)
		return "", set, false, filepos.Errorf(o.Pos(v), "%s%s: %q: want one of %s",
			manifest.DirectivePrefix, Directive, mode, strings.Join(modes, ", "))
	}
	return mode, set, true, nil
}

// rename gives o its name with the hash suffix, keeping the old name as
// its base name and label.
func (t *target) rename(o *manifest.Object, nameNode *yaml.Node) *filepos.Error {
	name := nameNode.Value
	t.newName = name + "-" + t.sum
	if len(t.newName) > maxName {
		return filepos.Errorf(o.Pos(nameNode), "%s name %q is too long for a hash suffix: %d characters with it, at most %d",
			o.Kind(), name, len(t.newName), maxName)
	}
	nameNode.Value, nameNode.Tag = t.newName, "!!str"
	o.BaseName = name
	setNameLabel(o, name)
	return nil
}

// rewrite points o's references at the hashed names and, for referents in
// annotation mode, stamps o's pod template.
func (st *Stage) rewrite(s *manifest.Set, o *manifest.Object, found []refs.Found, index map[key]*target, byName map[key][]*target) {
	var stamp map[string]bool
	var done map[*yaml.Node]bool // a name node reached twice (through an alias) is renamed once
	ns := s.NamespaceOf(o)
	for _, f := range found {
		if done[f.Name] {
			continue
		}
		t := lookup(f, ns, index, byName)
		if t == nil {
			// With hashing off, nothing would roll even if it were here.
			if st.mode != Off && !f.Ref.Quiet && !optional(f.Holder) {
				msg := fmt.Sprintf("%s %q is not in this render (namespace %s): the reference is left as is", f.Ref.To, f.Name.Value, refNamespace(f, ns))
				if f.Ref.Pod {
					msg += ", and pods will not roll when it changes"
				}
				s.Note(o, ruleid.RefNotRendered, filepos.Warning, o.Pos(f.Name), msg)
			}
			continue
		}
		if done == nil {
			done = map[*yaml.Node]bool{}
		}
		done[f.Name] = true
		switch t.mode {
		case Suffix:
			f.Name.Value, f.Name.Tag = t.newName, "!!str"
		case Annotation:
			if f.Ref.Pod {
				if stamp == nil {
					stamp = map[string]bool{}
				}
				stamp[f.Ref.To+"/"+f.Name.Value+"="+t.sum] = true
			}
		}
	}
	if stamp != nil {
		setConfigHash(o, stamp)
	}
}

func lookup(f refs.Found, ns string, index map[key]*target, byName map[key][]*target) *target {
	if f.Ref.Cluster && manifest.Value(f.Holder, "namespace") == nil {
		ts := byName[key{kind: f.Ref.To, name: f.Name.Value}]
		if len(ts) == 0 {
			return nil
		}
		for _, t := range ts[1:] {
			if t.newName != ts[0].newName {
				return nil // same name, other content, other namespace: no way to choose
			}
		}
		return ts[0]
	}
	return index[key{refNamespace(f, ns), f.Ref.To, f.Name.Value}]
}

// refNamespace is where the referent lives: the referrer's namespace unless
// the reference names one (a ServiceAccount's secrets may).
func refNamespace(f refs.Found, ns string) string { return f.Namespace(ns) }

func optional(holder *yaml.Node) bool {
	v := manifest.Value(holder, "optional")
	return v != nil && v.Kind == yaml.ScalarNode && v.Value == "true"
}

// setConfigHash writes ConfigHashKey into o's pod template.
func setConfigHash(o *manifest.Object, stamp map[string]bool) {
	tpl := workload.PodTemplate(o)
	if tpl == nil {
		return
	}
	list := make([]string, 0, len(stamp))
	for s := range stamp {
		list = append(list, s)
	}
	sum, err := hasher.SortArrayAndComputeHash(list)
	if err != nil {
		return // only on a sha256 shorter than 10 hex digits
	}
	md := manifest.Value(tpl, "metadata")
	if md == nil || md.Kind != yaml.MappingNode {
		// A template's metadata reads best before its spec.
		md = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		manifest.Delete(tpl, "metadata")
		tpl.Content = append([]*yaml.Node{manifest.String("metadata"), md}, tpl.Content...)
	}
	manifest.Put(manifest.Ensure(md, "annotations"), ConfigHashKey, manifest.String(sum))
	o.MadeEntry(StageName, tpl, "metadata")
}

// References is the stage's reference table: the built-in fields and the
// profile's. gc reads cluster objects with it, so that it finds exactly
// the references this stage rewrites.
func (st *Stage) References() *refs.Table { return st.table }

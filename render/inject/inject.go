// Package inject puts shell-bearing fragments (a wrapper command that picks a
// per-zone mount target, say) into the workloads a profile selects, after
// substitution: fragments never see `$` substitution, their `__NAME__`
// placeholders take typed values checked to be shell-safe, and selection,
// target paths and deletions are yq expressions evaluated in-process.
package inject

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
	"github.com/krender/krender/render/inject/yqexpr"
)

// Modes of an inject entry.
const (
	ModeMerge  = "merge"  // deep merge, lists by their Kubernetes merge key (the default)
	ModeAppend = "append" // yq's `+=`, exactly
)

// Stage injects every entry of a profile, in order.
type Stage struct {
	entries []*entry
}

type entry struct {
	in      profiles.Inject
	frag    *fragment
	where   *yqexpr.Expr
	into    *yqexpr.Expr
	deletes []*yqexpr.Expr
	exclude map[string]bool
	add     *yqexpr.Expr // `. += $frag`, for mode: append
}

// StageName marks the nodes this stage makes (manifest.Object.Made): those
// yq's `+=` creates where the fragment had none to copy.
const StageName = "inject"

// New compiles every expression and loads every fragment of p once; read is
// how the render reads files.
func New(read func(string) ([]byte, error), p *profiles.Profile, yq yqexpr.Syntax) (*Stage, error) {
	st := &Stage{}
	var errs filepos.List
	for _, in := range p.Inject {
		e, err := newEntry(read, in, p.Limits, yq)
		if err != nil {
			errs = filepos.Append(errs, err)
			continue
		}
		st.entries = append(st.entries, e)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return st, nil
}

func newEntry(read func(string) ([]byte, error), in profiles.Inject, lim limits.Limits, yq yqexpr.Syntax) (*entry, error) {
	e := &entry{in: in, exclude: map[string]bool{}}
	var errs filepos.List
	add := func(err error) { errs = filepos.Append(errs, err) }
	name := in.Name.Value
	switch {
	case in.Container.Value != "" && in.Into.Value != "":
		add(filepos.Errorf(in.Into.Pos, "inject %s: give container or into, not both", name))
	case in.Container.Value == "" && in.Into.Value == "":
		add(filepos.Errorf(in.Pos, "inject %s needs a target: container (a container name) or into (a yq path)", name))
	}
	switch in.Mode.Value {
	case "", ModeMerge:
	case ModeAppend:
		x, err := yqexpr.Compile(". += $frag", filepos.Pos{})
		if err != nil {
			return nil, err
		}
		e.add = x
	default:
		add(filepos.Errorf(in.Mode.Pos, "unknown mode %q: use merge (the default) or append (yq's +=)", in.Mode.Value))
	}
	errs = append(errs, e.compileExpressions(in, yq)...)
	for _, x := range in.Exclude {
		e.exclude[x.Value] = true
	}
	add(e.readFragment(read, in, lim))
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// compileExpressions compiles the entry's where, into and delete
// expressions, reporting every one that does not compile.
func (e *entry) compileExpressions(in profiles.Inject, yq yqexpr.Syntax) filepos.List {
	var errs filepos.List
	var err error
	if in.Where.Value != "" {
		if e.where, err = yq.Selector(in.Where.Value, in.Where.Pos); err != nil {
			errs = filepos.Append(errs, err)
		}
	}
	if in.Into.Value != "" {
		if e.into, err = yq.Compile(in.Into.Value, in.Into.Pos); err != nil {
			errs = filepos.Append(errs, err)
		}
	}
	for _, d := range in.Delete {
		x, err := yq.Compile(d.Value, d.Pos)
		if err != nil {
			errs = filepos.Append(errs, err)
			continue
		}
		e.deletes = append(e.deletes, x)
	}
	return errs
}

// readFragment loads the entry's fragment; one for a container must be a
// mapping of container fields.
func (e *entry) readFragment(read func(string) ([]byte, error), in profiles.Inject, lim limits.Limits) error {
	var err error
	if e.frag, err = loadFragment(read, in, lim); err != nil {
		return err
	}
	if in.Container.Value != "" && e.frag.node.Kind != yaml.MappingNode {
		n := e.frag.node
		return filepos.Errorf(filepos.Pos{File: e.frag.src.Path, Line: n.Line, Col: n.Column},
			"a fragment for a container must be a mapping of container fields (inject %s)", in.Name.Value)
	}
	return nil
}

// Apply injects into every object of s. An object an entry changed is
// held to the nodes limit again before the next entry's yq expressions
// and the later stages (hashing, the schema check) follow its aliases: an
// injection can add what the templates alone did not have.
func (st *Stage) Apply(s *manifest.Set) error {
	var errs filepos.List
	grown := map[*manifest.Object]bool{}
	recheck := func() error {
		for o := range grown {
			if err := o.CheckNodes(); err != nil {
				return err
			}
		}
		clear(grown)
		return nil
	}
	for _, e := range st.entries {
		if err := recheck(); err != nil {
			return err
		}
		reached, changed := false, false
		for _, o := range s.Objects {
			if err := s.Stopped(); err != nil {
				return err
			}
			r, err := e.apply(o)
			if err != nil {
				errs = filepos.Append(errs, err)
			}
			if r != unreached {
				reached = true
				grown[o] = true
			}
			changed = changed || r == modified
		}
		switch {
		case len(errs) > 0, changed:
		case reached:
			s.Note(nil, ruleid.InjectUnused, filepos.Warning, e.in.Pos, fmt.Sprintf("inject %s changed nothing: each object it reaches already holds what its fragment gives", e.in.Name.Value))
		default:
			s.Note(nil, ruleid.InjectUnused, filepos.Warning, e.in.Pos, fmt.Sprintf("inject %s changed no object: no selected object has its target", e.in.Name.Value))
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	return recheck()
}

// outcome is what an entry did to one object.
type outcome uint8

const (
	unreached outcome = iota // not selected, or without the target
	unchanged                // the target already held what the fragment gives
	modified
)

// apply injects into o if e selects it and o has the target.
func (e *entry) apply(o *manifest.Object) (outcome, error) {
	if e.exclude[o.Name()] {
		return unreached, nil
	}
	if e.where != nil {
		ok, err := e.where.Match(o.Node)
		if err != nil {
			return unreached, e.exprError(e.where, o, err)
		}
		if !ok {
			return unreached, nil
		}
	}
	targets, err := e.targets(o)
	if err != nil || len(targets) == 0 {
		return unreached, err
	}
	out := unchanged
	for _, d := range e.deletes {
		n, err := d.Delete(o.Node)
		if err != nil {
			return unreached, e.exprError(d, o, err)
		}
		if n > 0 {
			out = modified
		}
	}
	if targets, err = e.targets(o); err != nil { // a deletion may have moved them
		return unreached, err
	}
	for _, t := range targets {
		changed, err := e.put(o, t)
		if err != nil {
			return unreached, err
		}
		if changed {
			out = modified
		}
	}
	return out, nil
}

// targets are the nodes of o the fragment goes into. Objects without the
// target are left alone: a Service never gets a pod template. A workload
// without the named container is an error, since the profile says it has one.
func (e *entry) targets(o *manifest.Object) ([]*yaml.Node, error) {
	if e.into != nil {
		ts, err := e.into.Nodes(o.Node)
		if err != nil {
			return nil, e.exprError(e.into, o, err)
		}
		return ts, nil
	}
	spec := workload.PodSpec(o)
	if spec == nil {
		return nil, nil
	}
	want := e.in.Container.Value
	if c := workload.Container(spec, want); c != nil {
		return []*yaml.Node{c}, nil
	}
	var have []string
	for _, c := range workload.Containers(spec) {
		have = append(have, manifest.ScalarAt(c, "name"))
	}
	return nil, filepos.Errorf(o.Pos(o.Node), "%s %s has no container %q (it has %s), which inject %s (%s) targets",
		o.Kind(), o.Name(), want, listOrNone(have), e.in.Name.Value, e.in.Container.Pos)
}

// put lays the fragment over one target, keeping the target's pointer,
// and reports whether the target's value changed.
func (e *entry) put(o *manifest.Object, t *yaml.Node) (bool, error) {
	if e.add == nil {
		s := containerShape
		if e.into != nil {
			s = shapeAt(o, t)
		}
		return merge(t, e.frag.node, s, grafter{o, e.frag.src}), nil
	}
	before, changed := o.Pos(t), false
	err := o.Rebuild(StageName, t, e.frag.node, e.frag.src, func(t, frag *yaml.Node) (*yaml.Node, error) {
		out, err := e.add.Eval(t, map[string]*yaml.Node{"frag": frag})
		changed = err == nil && !same(t, out) // Eval leaves t as it was
		return out, err
	})
	if err != nil {
		return false, filepos.Errorf(before, "inject %s (%s) cannot add its fragment here: %v", e.in.Name.Value, e.in.Pos, err)
	}
	return changed, nil
}

func (e *entry) exprError(x *yqexpr.Expr, o *manifest.Object, err error) error {
	return filepos.Errorf(x.Pos, "inject %s: %q failed on %s %s (%s): %v", e.in.Name.Value, x.Text, o.Kind(), o.Name(), o.Pos(o.Node), err)
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

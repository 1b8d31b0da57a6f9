// Package render is krender's engine: templates are parsed once, then for
// each unit (a tenant, or the profile itself) copied and handed through the
// stages listed in stages.go, units in parallel, results in unit order.
// It reads no file and knows no flag: package loader reads the model,
// package action chooses the units and builds engines, and `krender
// check` hands New its linter as a stage (see docs/architecture.md).
package render

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/render/inject/yqexpr"
	"github.com/krender/krender/render/namespace"
	"github.com/krender/krender/render/redact"
	"github.com/krender/krender/render/subst"
)

// Stage is one step of the pipeline. Stages change the set in place and
// report problems in template coordinates.
//
// A stage is built once per run and then applied to many tenants at once:
// Apply runs concurrently on different Sets, so it must not change the
// stage's own state (compiled expressions, parsed fragments, tables) nor
// anything the Set shares with the parsed templates; it may only change the
// Set and objects it owns. Copy a shared node (a fragment) before adopting it.
type Stage interface {
	Apply(s *manifest.Set) error
}

// Config is what the engine renders: a profile, its templates and the
// units to render them for, all loaded already (package loader; the
// actions choose units from flags), and the stages the caller adds.
type Config struct {
	Profile   *profiles.Profile
	Templates []*manifest.Object
	Units     []Unit
	// Namespace is written into namespaced objects that name none; it
	// overrides the profile's (--namespace).
	Namespace string
	// CRDs type custom resources' fields for substitution and tell their
	// scope (the profile's check.crds, --crds).
	CRDs []*manifest.Object
	// Strict reads custom resources' strings and annotation values as
	// Kubernetes reads names (--strict; the profile's substitution.strict).
	Strict bool
	// Check is `krender check`'s linter, run after the other stages; with
	// one, undefined variables are its findings, not errors. A Check with
	// a Scope method tells the namespace stage custom kinds' scope.
	Check Stage
	// Fragments reads the profile's injection fragments by their paths.
	Fragments func(path string) ([]byte, error)
	// Eval lets the profile's yq expressions use eval: the caller turned
	// yqlib's file, env and system operators off for the process
	// (yqexpr.Settle, which the actions call). The engine reads no process
	// state to decide it.
	Eval bool
	// Redact, when set, writes every Secret's data as digests (see package
	// redact) and these values (CI's secrets) wherever they appear.
	Redact []string
	// Once says the engine renders once: the last unit takes each template
	// as it copies it, so that a run of one large unit holds one copy of
	// the templates rather than two. Map then cannot run again, nor
	// the vars listing (action.Vars).
	Once bool
	// Quiet says the caller reads no notes (krender diff): each unit's Set
	// is Quiet, and analyses that only note are skipped.
	Quiet bool
	// AfterStage, when set, sees every unit's set after each stage, named
	// by its type: tests check there what each stage left
	// (manifest.CheckPositions). Units render at once: it must be safe for
	// concurrent use.
	AfterStage func(stage string, s *manifest.Set)
	// Context stops the render when it is done (the CLI cancels it on
	// SIGINT and SIGTERM): no unit starts after it, and every stage stops
	// between objects and in its long loops (manifest.Set.Stopped). The
	// error is context.Cause. nil: never.
	Context context.Context
}

// Engine holds everything parsed once per run.
type Engine struct {
	Profile   *profiles.Profile
	Templates []*manifest.Object
	Units     []Unit
	stages    []Stage // built once; the engine alone runs them
	Workers   int     // units rendered at once; 0: GOMAXPROCS
	namespace string
	subst     *subst.Stage // also what `krender vars` asks
	limits    limits.Limits
	secret    map[string]bool // variables whose values reach a Secret's data
	disabled  map[string]bool // check.disable: notes of these rules are not shown
	// templateNodes is the size of one unit's copy of the templates, and
	// largestObject that of its largest object.
	templateNodes, largestObject int
	once, quiet                  bool
	afterStage                   func(stage string, s *manifest.Set)
	copying                      sync.WaitGroup // units that have yet to copy the templates (once)
	spent                        bool           // the last unit took the templates (once)
	ctx                          context.Context
}

// Unit is one render of every template: a tenant, or the profile itself.
type Unit struct {
	Tenant string
	Vars   profiles.Vars
}

// New checks the run's size against the profile's limits and prepares
// the stages; it reads nothing.
func New(c Config) (*Engine, error) {
	p, tpls, lim := c.Profile, c.Templates, c.Profile.Limits
	if err := objectsBefore(p, lim, c.Units, tpls); err != nil {
		return nil, err
	}
	if c.Once {
		tpls = slices.Clone(tpls) // the last unit releases them from this slice, not the caller's
	}
	e := &Engine{Profile: p, Templates: tpls, Units: c.Units, namespace: c.Namespace, limits: lim, secret: secretNames(tpls), once: c.Once, quiet: c.Quiet, afterStage: c.AfterStage, ctx: c.Context}
	e.countTemplateNodes()
	e.setDefaults()
	if err := e.prepareStages(c); err != nil {
		return nil, err
	}
	return e, nil
}

// countTemplateNodes records the templates' size, which the memory limit
// and the per-object budget are reckoned from.
func (e *Engine) countTemplateNodes() {
	for _, t := range e.Templates {
		n := 0
		manifest.Walk(t.Node, func(*yaml.Node) { n++ })
		e.templateNodes += n
		e.largestObject = max(e.largestObject, n)
	}
}

// setDefaults fills the namespace (--namespace, the profile's, else
// "default") and the rules the profile disables.
func (e *Engine) setDefaults() {
	if e.namespace == "" {
		e.namespace = e.Profile.Namespace.Value
	}
	e.disabled = map[string]bool{}
	for _, d := range e.Profile.Check.Disable {
		e.disabled[d.Value] = true
	}
	if e.namespace == "" {
		e.namespace = "default"
	}
}

// prepareStages builds the namespace and substitution stages and the
// stage list, with the caller's linter.
func (e *Engine) prepareStages(c Config) error {
	p, check := e.Profile, c.Check
	ns, err := namespaceStage(p, c.Namespace, check)
	if err != nil {
		return err
	}
	ns.Teller = namespace.CRDTeller(c.CRDs)
	if t, ok := check.(interface {
		Scope(schema.GroupKind) (bool, bool)
	}); ok {
		ns.Teller = t.Scope
	}
	e.subst = subst.New(p, check != nil, e.Templates)
	e.subst.AddCRDs(c.CRDs)
	if c.Strict {
		e.subst.Strict = true
	}
	var redacted Stage
	if c.Redact != nil {
		redacted = redact.Stage{Values: c.Redact}
	}
	e.stages, err = buildStages(c.Fragments, p, yqexpr.Syntax{Eval: c.Eval}, e.subst, ns, check, redacted)
	return err
}

// namespaceStage checks the namespace given on the command line, else the
// profile's, where it was written.
func namespaceStage(p *profiles.Profile, given string, check Stage) (namespace.Stage, error) {
	ns := namespace.Stage{Namespace: given, Notes: check != nil}
	var err error
	if ns.Namespace != "" {
		// A flag's value has no file:line:col: stated as the other flags'
		// errors are, not as a position.
		if e := namespace.Check(ns.Namespace, filepos.Pos{}); e != nil {
			var fe *filepos.Error
			if errors.As(e, &fe) {
				return ns, fmt.Errorf("--namespace: %s", fe.Msg)
			}
			return ns, e
		}
	} else if ns.Namespace = p.Namespace.Value; ns.Namespace != "" {
		err = namespace.Check(ns.Namespace, p.Namespace.Pos)
	}
	return ns, err
}

// Render produces one unit's objects: a copy of every template, through
// every stage. It never touches the parsed templates.
func (e *Engine) Render(u Unit) (*manifest.Set, error) {
	return e.render(u, false, func() {})
}

// render is Render; with take, it drops the engine's reference to each
// template once it has the copy, so that the garbage collector can free
// the template while the unit renders (Config.Once). copied runs once the
// unit has its copies, or has failed before.
func (e *Engine) render(u Unit, take bool, copied func()) (*manifest.Set, error) {
	done := sync.OnceFunc(copied)
	defer done()
	s := &manifest.Set{Tenant: u.Tenant, Namespace: e.namespace, Vars: u.Vars.Map(), Missing: u.Vars.Missing(), Limits: e.limits, Context: e.ctx}
	s.Redact = redactor(e.secret, s.Vars)
	s.Disabled, s.Quiet = e.disabled, e.quiet
	s.Objects = make([]*manifest.Object, len(e.Templates))
	for i, t := range e.Templates {
		s.Objects[i] = t.Clone()
		s.Objects[i].Tenant = u.Tenant
		if take {
			e.Templates[i] = nil
		}
	}
	done()
	for _, st := range e.stages {
		if err := s.Stopped(); err != nil {
			return nil, err
		}
		if err := st.Apply(s); err != nil {
			return nil, err
		}
		if err := e.objectLimit(0, s.Objects); err != nil {
			return nil, err
		}
		if e.afterStage != nil {
			e.afterStage(fmt.Sprintf("%T", st), s)
		}
	}
	filepos.SortNotes(s.Notes)
	return s, nil
}

// objectsBefore refuses a render that limits.objects is sure to stop before
// it starts: every unit makes at least one object per template (stages only
// add objects), so the product is known before any work.
func objectsBefore(p *profiles.Profile, lim limits.Limits, units []Unit, tpls []*manifest.Object) error {
	limit := lim.OrDefault().Objects
	if len(units) <= 1 || len(tpls) == 0 || len(units) <= limit/len(tpls) { // one unit: its own check names the object
		return nil
	}
	first := units[limit/len(tpls)].Tenant // the first unit past the limit
	at := filepos.Pos{File: p.Files[len(p.Files)-1]}
	for _, t := range p.Tenants {
		if t.Name == first {
			at = t.Pos
		}
	}
	return limits.TooManyObjectsBefore(at, limit, len(units), len(tpls))
}

// objectLimit refuses objs when, after before objects of other units, they
// take the render past limits.objects; the error names the first object
// past it.
func (e *Engine) objectLimit(before int, objs []*manifest.Object) error {
	limit := e.limits.OrDefault().Objects
	if before+len(objs) <= limit {
		return nil
	}
	o := objs[max(0, limit-before)]
	return limits.TooManyObjects(o.Pos(o.Node), limit)
}

// References is what substitution does with each reference of template t
// (a copy of it) for unit u, given the values vars shows (krender vars);
// once Config.Context is done, its cause.
func (e *Engine) References(u Unit, t *manifest.Object, vars map[string]string) ([]manifest.Ref, error) {
	if e.spent {
		return nil, fmt.Errorf("internal error: the engine has rendered once (Config.Once)")
	}
	if err := e.stopped(); err != nil {
		return nil, err
	}
	return e.subst.Substitute(t.Clone(), vars, u.Vars.Missing())
}

// Unused lists the profile's variables that unit u, whose objects hold
// refs (from References), never references (krender vars).
func (e *Engine) Unused(u Unit, refs ...[]manifest.Ref) []subst.Unused {
	if e.disabled[ruleid.UnusedVar] {
		return nil
	}
	return e.subst.Unused(u.Tenant, refs...)
}

// SecretVar reports whether the variable name is written into a Secret's
// data: its value is a secret, whatever set it.
func (e *Engine) SecretVar(name string) bool { return e.secret[name] }

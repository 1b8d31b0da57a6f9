// Package render is krender's engine: templates are parsed once, then for
// each unit (a tenant, or the profile itself) copied and handed through the
// stages listed in stages.go, units in parallel, results in unit order.
package render

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/loadroot"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/namespace"
	"github.com/krender/krender/profiles"
	"github.com/krender/krender/redact"
	"github.com/krender/krender/subst"
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

// Options are what a user chooses on the command line.
type Options struct {
	Profile   string   // path of the profile file
	Tenants   []string // restrict to these tenants; empty: all
	Set       []string // NAME=VALUE overrides, highest precedence
	Namespace string   // default namespace; overrides the profile's
	// CRDs are files or directories of CustomResourceDefinitions (--crds),
	// besides the profile's check.crds and those rendered: they type custom
	// resources' fields for substitution and tell their scope.
	CRDs []string
	// Strict reads custom resources' strings and annotation values as
	// Kubernetes reads names (--strict; the profile's substitution.strict).
	Strict bool
	Paths  []string // templates: files or directories, or StdinPath
	// Stdin is what the template path StdinPath reads (a post-renderer's
	// input), once: at most one path may be StdinPath.
	Stdin io.Reader
	Shard Shard // render only this slice of the tenants
	// Check builds the stage `krender check` adds after the others (its
	// linter); with one, undefined variables are its findings, not errors.
	Check func(*profiles.Profile) (Stage, error)
	// LimitMemory sets the process's soft memory limit to what the units
	// held at once need (see memoryLimit); the CLI's choice, not a library's.
	LimitMemory bool
	// Once says the engine renders once (the CLI's choice): the last unit
	// takes each template as it copies it, so that a run of one large unit
	// holds one copy of the templates rather than two. Map then cannot
	// run again, nor WriteVars.
	Once bool
	// Secrets are overrides like Set, read from CI's secrets (--set-env,
	// --set-file); their values are kept out of listings and, with Redact,
	// out of the output's Secret data.
	Secrets []Secret
	// Redact writes every Secret's data as digests (see package redact):
	// goldens that show a secret changed, never its value.
	Redact bool
	// Templates, when set, are the templates already parsed, instead of
	// Paths: a KRM function gets its objects on standard input.
	Templates []*manifest.Object
	// Root is where the files the profile names, and the links found in
	// template directories, must lead (--root, --load-restrictor); nil: the
	// default root of fsys, checked.
	Root *loadroot.Root
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
	limits    manifest.Limits
	secret    map[string]bool // variables whose values reach a Secret's data
	disabled  map[string]bool // check.disable: notes of these rules are not shown
	// templateNodes is the size of one unit's copy of the templates, and
	// largestObject that of its largest object.
	templateNodes, largestObject int
	once                         bool
	copying                      sync.WaitGroup // units that have yet to copy the templates (once)
	spent                        bool           // the last unit took the templates (once)
}

// Unit is one render of every template: a tenant, or the profile itself.
type Unit struct {
	Tenant string
	Vars   profiles.Vars
}

// New loads the profile and templates and prepares the stages.
func New(fsys FS, opts Options) (*Engine, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	root, err := DefaultRoot(fsys, opts.Root)
	if err != nil {
		return nil, err
	}
	if err := checkGivenPaths(root, opts); err != nil {
		return nil, err
	}
	p, set, units, err := loadProfile(fsys, root, opts)
	if err != nil {
		return nil, err
	}
	lim := p.Limits.OrDefault().Budget()
	p.Limits = lim // fragments count against the same inputNodes
	tpls, err := templatesFor(fsys, root, p, opts)
	if err != nil {
		return nil, err
	}
	if err := objectsBefore(p, lim, units, tpls); err != nil {
		return nil, err
	}
	if err := checkOverrides(p, set, tpls); err != nil {
		return nil, err
	}
	if opts.Once {
		tpls = slices.Clone(tpls) // the last unit releases them from this slice, not the caller's
	}
	e := &Engine{Profile: p, Templates: tpls, Units: units, namespace: opts.Namespace, limits: lim, secret: secretNames(tpls), once: opts.Once}
	e.countTemplateNodes()
	e.setDefaults()
	if err := e.prepareStages(fsys, root, opts); err != nil {
		return nil, err
	}
	if opts.LimitMemory {
		debug.SetMemoryLimit(e.memoryLimit())
	}
	return e, nil
}

// checkOptions rejects a call that names no profile or no templates before
// anything is read.
func checkOptions(opts Options) error {
	if opts.Profile == "" {
		return fmt.Errorf("a profile is required (-p PROFILE)")
	}
	if len(opts.Paths) == 0 && opts.Templates == nil {
		//lint:ignore ST1005 "PATH..." is the usage it shows, not punctuation; goldens print it
		return fmt.Errorf("no templates given: krender render -p PROFILE PATH...")
	}
	return checkStdin(opts)
}

// checkGivenPaths: paths on the command line are the caller's, but not a
// link committed in the repository that leads out of it.
func checkGivenPaths(root *loadroot.Root, opts Options) error {
	if err := root.CheckGiven("profile", opts.Profile); err != nil {
		return err
	}
	for _, path := range opts.Paths {
		if path == StdinPath && opts.Stdin != nil {
			continue
		}
		if err := root.CheckGiven("template", path); err != nil {
			return err
		}
	}
	return nil
}

// loadProfile reads the profile, the --set overrides with the CI secrets
// added, and the units this run (and shard) renders.
func loadProfile(fsys FS, root *loadroot.Root, opts Options) (*profiles.Profile, profiles.Vars, []Unit, error) {
	p, err := profiles.LoadGuarded(opts.Profile, readLimited(fsys, manifest.DefaultLimits().FileBytes), root.Check)
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := parseSet(opts.Set)
	if err != nil {
		return nil, nil, nil, err
	}
	if set, err = addSecrets(set, opts.Secrets); err != nil {
		return nil, nil, nil, err
	}
	units, err := selectUnits(p, opts.Tenants, set)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, set, opts.Shard.Of(units), nil
}

// templatesFor is the caller's parsed templates (krender fn's items), else
// the templates and the profile's fragments read from fsys; with
// LimitMemory the memory limit follows what has been read.
func templatesFor(fsys FS, root *loadroot.Root, p *profiles.Profile, opts Options) ([]*manifest.Object, error) {
	if opts.Templates != nil {
		return opts.Templates, nil
	}
	var fragments []string
	for _, in := range p.Inject {
		fragments = append(fragments, in.FragmentPath)
	}
	var seen func(int)
	if opts.LimitMemory {
		read := 0
		seen = func(n int) { read += n; debug.SetMemoryLimit(parseMemoryLimit(read)) }
	}
	return loadTemplates(fsys, root, p.Limits, opts.Paths, opts.Stdin, seen, fragments...)
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

// prepareStages builds the linter (when checking), the namespace and
// substitution stages and the stage list.
func (e *Engine) prepareStages(fsys FS, root *loadroot.Root, opts Options) error {
	p := e.Profile
	var check Stage
	if opts.Check != nil {
		var err error
		if check, err = opts.Check(p); err != nil {
			return err
		}
	}
	ns, err := namespaceStage(p, opts.Namespace, check)
	if err != nil {
		return err
	}
	crds, err := loadCRDs(fsys, root, p, opts.CRDs)
	if err != nil {
		return err
	}
	ns.Teller = namespace.CRDTeller(crds)
	if t, ok := check.(interface {
		Scope(schema.GroupKind) (bool, bool)
	}); ok {
		ns.Teller = t.Scope
	}
	e.subst = subst.New(p, check != nil, e.Templates)
	e.subst.AddCRDs(crds)
	if opts.Strict {
		e.subst.Strict = true
	}
	var redacted Stage
	if opts.Redact {
		redacted = redact.Stage{Values: SecretValues(opts.Secrets)}
	}
	e.stages, err = buildStages(fsys, p, e.subst, ns, check, redacted)
	return err
}

// namespaceStage checks the namespace given on the command line, else the
// profile's, where it was written.
func namespaceStage(p *profiles.Profile, given string, check Stage) (namespace.Stage, error) {
	ns := namespace.Stage{Namespace: given, Notes: check != nil}
	var err error
	if ns.Namespace != "" {
		err = namespace.Check(ns.Namespace, filepos.Pos{File: "--namespace"})
	} else if ns.Namespace = p.Namespace.Value; ns.Namespace != "" {
		err = namespace.Check(ns.Namespace, p.Namespace.Pos)
	}
	return ns, err
}

// loadCRDs reads the profile's check.crds and --crds, as check's linter
// does, so that render and check read custom resources alike.
func loadCRDs(fsys FS, root *loadroot.Root, p *profiles.Profile, given []string) ([]*manifest.Object, error) {
	var paths []string
	for _, c := range p.Check.CRDs {
		paths = append(paths, c.Value)
	}
	for _, c := range given {
		if err := root.CheckGiven("CRD file", c); err != nil {
			return nil, err
		}
	}
	if len(paths)+len(given) == 0 {
		return nil, nil
	}
	return LoadManifests(fsys, root, "CRD file", append(paths, given...))
}

// DefaultRoot is root, or when nil the default root of fsys, checked: what
// a library caller that chose nothing gets.
func DefaultRoot(fsys FS, root *loadroot.Root) (*loadroot.Root, error) {
	if root != nil {
		return root, nil
	}
	return loadroot.New(fsys, "", loadroot.RootOnly)
}

func parseSet(sets []string) (profiles.Vars, error) {
	var vars profiles.Vars
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || !profiles.ValidVarName(name) {
			return nil, fmt.Errorf("--set %q: want NAME=VALUE with NAME matching [A-Za-z_][A-Za-z0-9_]*", s)
		}
		vars = vars.Set(profiles.Var{Name: name, Value: value, Pos: filepos.Pos{File: "--set"}})
	}
	return vars, nil
}

func selectUnits(p *profiles.Profile, want []string, set profiles.Vars) ([]Unit, error) {
	if len(p.Tenants) == 0 {
		if len(want) > 0 {
			return nil, fmt.Errorf("-t %s: profile %s defines no tenants", want[0], p.Files[len(p.Files)-1])
		}
		return []Unit{{Vars: p.Vars.Merge(set)}}, nil
	}
	chosen := map[string]bool{}
	for _, w := range want {
		found := false
		for _, t := range p.Tenants {
			found = found || t.Name == w
		}
		if !found {
			var names []string
			for _, t := range p.Tenants {
				names = append(names, t.Name)
			}
			return nil, fmt.Errorf("-t %s: no such tenant in the profile%s", w, suggest.Hint(w, names))
		}
		chosen[w] = true
	}
	var units []Unit
	for _, t := range p.Tenants {
		if len(want) == 0 || chosen[t.Name] {
			units = append(units, Unit{Tenant: t.Name, Vars: p.Vars.Merge(t.Vars).Merge(set)})
		}
	}
	return units, nil
}

// Render produces one unit's objects: a copy of every template, through
// every stage. It never touches the parsed templates.
func (e *Engine) Render(u Unit) (*manifest.Set, error) {
	return e.render(u, false, func() {})
}

// render is Render; with take, it drops the engine's reference to each
// template once it has the copy, so that the garbage collector can free
// the template while the unit renders (Options.Once). copied runs once the
// unit has its copies, or has failed before.
func (e *Engine) render(u Unit, take bool, copied func()) (*manifest.Set, error) {
	done := sync.OnceFunc(copied)
	defer done()
	s := &manifest.Set{Tenant: u.Tenant, Namespace: e.namespace, Vars: u.Vars.Map(), Missing: u.Vars.Missing(), Limits: e.limits}
	s.Redact = redactor(e.secret, s.Vars)
	s.Disabled = e.disabled
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
		if err := st.Apply(s); err != nil {
			return nil, err
		}
		if err := e.objectLimit(0, s.Objects); err != nil {
			return nil, err
		}
		afterStage(st, s)
	}
	filepos.SortNotes(s.Notes)
	return s, nil
}

// objectsBefore refuses a render that limits.objects is sure to stop before
// it starts: every unit makes at least one object per template (stages only
// add objects), so the product is known before any work.
func objectsBefore(p *profiles.Profile, lim manifest.Limits, units []Unit, tpls []*manifest.Object) error {
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
	return manifest.TooManyObjectsBefore(at, limit, len(units), len(tpls))
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
	return manifest.TooManyObjects(o.Pos(o.Node), limit)
}

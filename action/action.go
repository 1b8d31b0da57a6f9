// Package action is what krender's commands do, over the engine: load a
// run's model from files (package loader), choose its units from the
// flags, and build the engine (Engine, Load); one type per command, whose
// Run returns what there is to print: Render, Check, Fn, Vars, Tenants,
// Schema, Version; package action/gc is gc's. The
// actions stand above the linter, as Helm's pkg/action over pkg/lint:
// Check runs package check's linter as the engine's check stage, and so
// does Fn over a KRM function's items, which the command line reads from a
// ResourceList and writes back from Fn's Result.
package action

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render"
	"github.com/krender/krender/render/inject/yqexpr"
)

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
	Paths  []string // templates: files or directories, or loader.StdinPath
	// Stdin is what the template path loader.StdinPath reads (a
	// post-renderer's input), once: at most one path may be StdinPath.
	Stdin io.Reader
	Shard Shard // render only this slice of the tenants
	// MemoryLimit, when set, is told the soft memory limit the run needs
	// as it learns it (templates read, units known): the CLI passes
	// debug.SetMemoryLimit, a setting of the process and not a library's.
	MemoryLimit func(int64)
	// Once says the engine renders once (render.Config.Once).
	Once bool
	// Quiet says the caller reads no notes (render.Config.Quiet).
	Quiet bool
	// AfterStage is render.Config.AfterStage: tests look at every stage.
	AfterStage func(stage string, s *manifest.Set)
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
	// default root of the file system, checked.
	Root *loadroot.Root
	// Context stops the run when it is done (the CLI cancels it on SIGINT
	// and SIGTERM): reading templates and rendering stop within a file's
	// document or a stage's object, with context.Cause. nil: never.
	Context context.Context
}

// Inputs are a run's model, loaded and checked against the flags: what
// the engine, and check's linter, are built from.
type Inputs struct {
	FS        filesys.Reader
	Root      *loadroot.Root
	Profile   *profiles.Profile
	Templates []*manifest.Object
	Units     []render.Unit
	// CRDs are the CRD files' objects (the profile's check.crds, then
	// --crds), read once: the engine and check's linter get the same.
	CRDs []*manifest.Object
	opts Options
}

// Engine is the render action: the run's inputs loaded, and the engine
// built over them without a linter.
func Engine(fsys filesys.Reader, o Options) (*render.Engine, error) {
	in, err := Load(fsys, o)
	if err != nil {
		return nil, err
	}
	return in.Engine(nil)
}

// Load reads the profile and templates from fsys (paths as the user typed
// them, see package userfs) and the CRD files, and chooses the units the
// flags ask for.
func Load(fsys filesys.Reader, o Options) (*Inputs, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	root, err := Root(fsys, o.Root, o.Profile)
	if err != nil {
		return nil, err
	}
	if err := checkGivenPaths(root, o); err != nil {
		return nil, err
	}
	p, set, units, err := loadProfile(fsys, root, o)
	if err != nil {
		return nil, err
	}
	p.Limits = p.Limits.OrDefault().Budget() // fragments count against the same inputNodes
	tpls, err := templatesFor(fsys, root, p, o)
	if err != nil {
		return nil, err
	}
	if err := checkOverrides(p, set, tpls); err != nil {
		return nil, err
	}
	crds, err := loader.CRDs(fsys, root, p, o.CRDs)
	if err != nil {
		return nil, err
	}
	return &Inputs{FS: fsys, Root: root, Profile: p, Templates: tpls, Units: units, CRDs: crds, opts: o}, nil
}

// Engine builds the engine over the inputs, with check as its last stage
// but one when not nil (`krender check`'s linter); the memory limit then
// follows the units it holds at once.
func (in *Inputs) Engine(check render.Stage) (*render.Engine, error) {
	o := in.opts
	yqexpr.Settle()
	c := render.Config{
		Eval:    true,
		Profile: in.Profile, Templates: in.Templates, Units: in.Units,
		Namespace: o.Namespace, CRDs: in.CRDs, Strict: o.Strict, Check: check,
		Fragments: loader.Fragments(in.FS, in.Profile), Once: o.Once, Quiet: o.Quiet, AfterStage: o.AfterStage,
		Context: o.Context,
	}
	if o.Redact {
		c.Redact = SecretValues(o.Secrets)
	}
	e, err := render.New(c)
	if err != nil {
		return nil, err
	}
	if o.MemoryLimit != nil {
		o.MemoryLimit(e.MemoryLimit())
	}
	return e, nil
}

// Root is root, or when nil the default root of fsys, checked: what a
// library caller that chose nothing gets. profile is the profile the
// caller names ("" for none, or one the root must hold, as krender fn's):
// outside any git work tree the root is the one holding it. Every action
// resolves its root here, once, and hands it down.
func Root(fsys filesys.Reader, root *loadroot.Root, profile string) (*loadroot.Root, error) {
	if root != nil {
		return root, nil
	}
	return loadroot.New(fsys, "", loadroot.RootOnly, profile)
}

// checkOptions rejects a call that names no profile or no templates before
// anything is read.
func checkOptions(o Options) error {
	if o.Profile == "" {
		return fmt.Errorf("a profile is required (-p PROFILE)")
	}
	if len(o.Paths) == 0 && o.Templates == nil {
		//lint:ignore ST1005 "PATH..." is the usage it shows, not punctuation; goldens print it
		return fmt.Errorf("no templates given: krender render -p PROFILE PATH...")
	}
	if o.Templates != nil {
		return nil
	}
	return loader.CheckStdin(o.Paths, o.Stdin)
}

// checkGivenPaths: paths on the command line are the caller's, but not a
// link committed in the repository that leads out of it.
func checkGivenPaths(root *loadroot.Root, o Options) error {
	if err := root.CheckGiven("profile", o.Profile); err != nil {
		return err
	}
	for _, path := range o.Paths {
		if path == loader.StdinPath && o.Stdin != nil {
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
func loadProfile(fsys filesys.Reader, root *loadroot.Root, o Options) (*profiles.Profile, profiles.Vars, []render.Unit, error) {
	p, err := loader.Profile(fsys, root, o.Profile)
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := parseSet(o.Set)
	if err != nil {
		return nil, nil, nil, err
	}
	if set, err = addSecrets(set, o.Secrets); err != nil {
		return nil, nil, nil, err
	}
	units, err := selectUnits(p, o.Tenants, set)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, set, o.Shard.Of(units), nil
}

// templatesFor is the caller's parsed templates (krender fn's items), else
// the templates read from fsys, the profile's fragments passed over; with
// MemoryLimit the memory limit follows what has been read.
func templatesFor(fsys filesys.Reader, root *loadroot.Root, p *profiles.Profile, o Options) ([]*manifest.Object, error) {
	if o.Templates != nil {
		return o.Templates, nil
	}
	t := loader.Templates{FS: fsys, Root: root, Limits: p.Limits, Stdin: o.Stdin, Context: o.Context}
	for _, in := range p.Inject {
		t.Skip = append(t.Skip, in.FragmentPath)
	}
	if o.MemoryLimit != nil {
		read := 0
		t.Seen = func(n int) { read += n; o.MemoryLimit(render.ParseMemoryLimit(read)) }
	}
	return t.Load(o.Paths)
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

func selectUnits(p *profiles.Profile, want []string, set profiles.Vars) ([]render.Unit, error) {
	if len(p.Tenants) == 0 {
		if len(want) > 0 {
			return nil, fmt.Errorf("-t %s: profile %s defines no tenants", want[0], p.Files[len(p.Files)-1])
		}
		return []render.Unit{{Vars: p.Vars.Merge(set)}}, nil
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
	var units []render.Unit
	for _, t := range p.Tenants {
		if len(want) == 0 || chosen[t.Name] {
			units = append(units, render.Unit{Tenant: t.Name, Vars: p.Vars.Merge(t.Vars).Merge(set)})
		}
	}
	return units, nil
}

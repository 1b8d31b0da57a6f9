package action

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/render"
)

// Fn is `krender fn`, the action: it renders a KRM function's items as
// its functionConfig asks, through the same stages as `krender render`,
// with check's findings unless functionConfig says spec.check: false. The
// command line reads the ResourceList and writes it back from the Result
// (the KRM function's protocol); Fn knows nothing of either.
type Fn struct {
	// Items are the ResourceList's items, as templates: their positions
	// are lines of the list.
	Items []*manifest.Object
	// Profile is functionConfig's spec.profile, a path from the directory
	// the function runs in; ProfileAt is where functionConfig names it.
	Profile   string
	ProfileAt filepos.Pos
	// Tenant is spec.tenant: one tenant of a profile that has tenants (a
	// function returns one set of objects, and two tenants' would collide).
	Tenant string
	// Set is spec.set, as --set NAME=VALUE.
	Set map[string]string
	// NoCheck is spec.check: false: render only, as `krender render` does.
	NoCheck bool
	// FS holds the profile and the files it names, paths as users type
	// them (see package userfs).
	FS filesys.Reader
	// Secrets are CI's secrets (--set-env, --set-file), as in Options.
	Secrets []Secret
	// Root is where the profile, named by functionConfig (a file of the
	// repository like any other), and the files it names must lie; nil:
	// the default root of FS (the git work tree holding the directory the
	// function runs in).
	Root *loadroot.Root
	// Validator is the API server's validation for check's findings
	// (check.Config.Validator); nil: check settles what it can and Run
	// returns check.ErrNeedsValidator for the rest.
	Validator verdict.Validator
}

// FnResult is what `krender fn` writes: the rendered objects, the list's
// items, and check's findings, its results (none under NoCheck); Notes
// are the stages' messages, for stderr.
type FnResult struct {
	Objects  []*manifest.Object
	Findings []check.Finding
	Notes    []filepos.Note
}

// Run renders with ctx (cancelling it stops the run). An undefined
// variable is an error, as for `krender render`, and nothing is returned
// but the error: an orchestrator must never mistake half a list for the
// output.
func (f *Fn) Run(ctx context.Context) (FnResult, error) {
	root, err := Root(f.FS, f.Root, "") // the root must hold spec.profile: it does not choose it
	if err != nil {
		return FnResult{}, err
	}
	if err := root.Check("the profile", f.Profile, f.ProfileAt); err != nil {
		return FnResult{}, err
	}
	in, err := Load(f.FS, f.options(ctx, root))
	if err != nil {
		return FnResult{}, err
	}
	var l *check.Linter
	var stage render.Stage
	if !f.NoCheck {
		if l, err = linter(in.Profile, in.CRDs, false, f.Validator); err != nil {
			return FnResult{}, err
		}
		stage = l
	}
	e, err := in.Engine(stage)
	if err != nil {
		return FnResult{}, err
	}
	if err := oneUnit(e, f.Profile); err != nil {
		return FnResult{}, err
	}
	var set *manifest.Set
	res, err := e.Each(func(s *manifest.Set) error { set = s; return nil })
	if err != nil {
		return FnResult{}, err
	}
	var found []check.Finding
	if l != nil {
		if found, err = results(l.Findings()); err != nil {
			return FnResult{}, err
		}
	}
	return FnResult{Objects: set.Objects, Findings: found, Notes: res.Notes}, nil
}

// options are what functionConfig asks of the render action.
func (f *Fn) options(ctx context.Context, root *loadroot.Root) Options {
	items := f.Items
	if items == nil {
		items = []*manifest.Object{} // no items, not template paths
	}
	opts := Options{Profile: f.Profile, Templates: items, Secrets: f.Secrets, Root: root, Context: ctx}
	if f.Tenant != "" {
		opts.Tenants = []string{f.Tenant}
	}
	names := make([]string, 0, len(f.Set))
	for name := range f.Set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		opts.Set = append(opts.Set, name+"="+f.Set[name])
	}
	return opts
}

// results are check's findings as a function reports them: an undefined
// variable is `krender render`'s error, and a function renders, so it
// fails on it as render does; every other finding is a result, and render
// would not fail on it either.
func results(fs []check.Finding) ([]check.Finding, error) {
	var errs filepos.List
	var out []check.Finding
	for _, f := range fs {
		if f.Rule == ruleid.UnresolvedVar && f.Severity == filepos.Err {
			errs = append(errs, filepos.Errorf(f.Pos, "%s", f.Msg))
			continue
		}
		out = append(out, f)
	}
	return out, errs.Err()
}

// oneUnit refuses a profile with tenants when functionConfig names none:
// a function returns one set of objects, and two tenants' would collide.
func oneUnit(e *render.Engine, profile string) error {
	if len(e.Units) == 1 {
		return nil
	}
	var tenants []string
	for _, u := range e.Units {
		tenants = append(tenants, u.Tenant)
	}
	return fmt.Errorf("functionConfig: profile %s has tenants (%s): name one in spec.tenant", profile, strings.Join(tenants, ", "))
}

package output

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render"
	"github.com/krender/krender/render/inject/yqexpr"
)

// engineOptions are the inputs a test engine is loaded from. The tests build
// engines as action.Engine does (the profile and templates loaded, every
// tenant a unit), without its load root, CRD files and flag checks: action
// imports this package, so its tests cannot import action.
type engineOptions struct {
	Profile string
	Paths   []string
	// Set are NAME=VALUE overrides over every unit's variables (--set).
	Set []string
	// AfterStage is render.Config.AfterStage.
	AfterStage func(stage string, s *manifest.Set)
}

// newEngine is the engine over the profile and templates of fsys.
func newEngine(fsys filesys.Reader, o engineOptions) (*render.Engine, error) {
	p, err := loader.Profile(fsys, nil, o.Profile)
	if err != nil {
		return nil, err
	}
	p.Limits = p.Limits.OrDefault().Budget()
	var skip []string
	for _, in := range p.Inject {
		skip = append(skip, in.FragmentPath)
	}
	tpls, err := loader.Templates{FS: fsys, Limits: p.Limits, Skip: skip}.Load(o.Paths)
	if err != nil {
		return nil, err
	}
	var set profiles.Vars
	for _, s := range o.Set {
		name, value, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("set %q: want NAME=VALUE", s)
		}
		set = set.Set(profiles.Var{Name: name, Value: value, Pos: filepos.Pos{File: "--set"}})
	}
	units := []render.Unit{{Vars: p.Vars.Merge(set)}}
	if len(p.Tenants) > 0 {
		units = nil
		for _, t := range p.Tenants {
			units = append(units, render.Unit{Tenant: t.Name, Vars: p.Vars.Merge(t.Vars).Merge(set)})
		}
	}
	yqexpr.Settle()
	return render.New(render.Config{
		Eval: true, Profile: p, Templates: tpls, Units: units,
		Fragments: loader.Fragments(fsys, p), AfterStage: o.AfterStage,
	})
}

// mustEngine is newEngine, failing t on an error.
func mustEngine(t testing.TB, fsys filesys.Reader, o engineOptions) *render.Engine {
	t.Helper()
	e, err := newEngine(fsys, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

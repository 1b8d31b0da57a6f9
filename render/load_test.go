package render

import (
	"context"
	"io"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/model/manifest"
)

// Options are the inputs a test engine is loaded from.
type Options struct {
	Profile string
	Paths   []string
	Stdin   io.Reader
	Once    bool
	// AfterStage is Config.AfterStage.
	AfterStage func(stage string, s *manifest.Set)
	// Context is Config.Context, and the loader's.
	Context context.Context
}

// load reads the profile and templates from fsys as the render action
// does, every tenant a unit, and builds the engine over them. The tests'
// own fixtures need no load root: nil, anywhere.
func load(fsys filesys.Reader, o Options) (*Engine, error) {
	p, err := loader.Profile(fsys, nil, o.Profile)
	if err != nil {
		return nil, err
	}
	p.Limits = p.Limits.OrDefault().Budget()
	t := loader.Templates{FS: fsys, Limits: p.Limits, Stdin: o.Stdin, Context: o.Context}
	for _, in := range p.Inject {
		t.Skip = append(t.Skip, in.FragmentPath)
	}
	tpls, err := t.Load(o.Paths)
	if err != nil {
		return nil, err
	}
	units := []Unit{{Vars: p.Vars}}
	if len(p.Tenants) > 0 {
		units = nil
		for _, tn := range p.Tenants {
			units = append(units, Unit{Tenant: tn.Name, Vars: p.Vars.Merge(tn.Vars)})
		}
	}
	return New(Config{Profile: p, Templates: tpls, Units: units, Fragments: loader.Fragments(fsys, p), Once: o.Once, AfterStage: o.AfterStage, Context: o.Context})
}

package check

import (
	"io/fs"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render"
)

// Check is `krender check`, the action: it loads the run's inputs, builds
// the linter for their profile and renders everything in memory with it as
// the engine's check stage, past undefined variables (they become
// findings). It stands in lint, not in action, because the linter stands
// above action (see internal/layers). Nothing is written.
type Check struct {
	action.Options
	// Config is the linter's; its FS and Root default to the action's.
	Config Config
	// FS holds the templates and profiles, paths as users type them (see
	// package userfs).
	FS fs.FS
}

// Run returns what the rules found and the stages noted, as one list.
func (c *Check) Run() ([]Finding, error) {
	in, err := action.Load(c.FS, c.Options)
	if err != nil {
		return nil, err
	}
	cfg := c.Config
	if cfg.FS == nil {
		cfg.FS = c.FS
	}
	if cfg.Root == nil {
		cfg.Root = in.Root
	}
	l, err := New(in.Profile, cfg)
	if err != nil {
		return nil, err
	}
	e, err := in.Engine(l)
	if err != nil {
		return nil, err
	}
	if _, err := e.Each(func(*manifest.Set) error { return nil }); err != nil {
		return nil, err
	}
	return l.Findings(), nil
}

// KRMLinter is check's linter for krender fn's results (a krm.Linter),
// with v as its Validator: it takes the loaded profile, not the loaded
// run, so that the linter needs nothing of the actions above it.
func KRMLinter(v verdict.Validator) func(*profiles.Profile, fs.FS, *loadroot.Root) (render.Stage, func() []Finding, error) {
	return func(p *profiles.Profile, fsys fs.FS, root *loadroot.Root) (render.Stage, func() []Finding, error) {
		l, err := New(p, Config{FS: fsys, Root: root, Validator: v})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Findings, nil
	}
}

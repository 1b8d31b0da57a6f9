package action

import (
	"io/fs"

	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/model/manifest"
)

// Check is `krender check`, the action: it loads the run's inputs, builds
// the linter (package check) for their profile and renders everything in
// memory with it as the engine's check stage, past undefined variables
// (they become findings). Nothing is written.
type Check struct {
	Options
	// Config is the linter's; its FS and Root default to the action's.
	Config check.Config
	// FS holds the templates and profiles, paths as users type them (see
	// package userfs).
	FS fs.FS
}

// Run returns what the rules found and the stages noted, as one list.
func (c *Check) Run() ([]check.Finding, error) {
	in, err := Load(c.FS, c.Options)
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
	l, err := check.New(in.Profile, cfg)
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

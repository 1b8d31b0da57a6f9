package check

import (
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/profiles"
	"github.com/krender/krender/render"
)

// Run renders everything in memory with the linter as the engine's check
// stage, past undefined variables (they become findings), and returns what
// the rules found and the stages noted, as one list. Nothing is written.
func Run(fsys render.FS, opts render.Options, cfg Config) ([]Finding, error) {
	if cfg.FS == nil {
		cfg.FS = fsys
	}
	root, err := render.DefaultRoot(fsys, opts.Root)
	if err != nil {
		return nil, err
	}
	opts.Root = root
	if cfg.Root == nil {
		cfg.Root = root
	}
	var l *Linter
	opts.Check = func(p *profiles.Profile) (render.Stage, error) {
		var err error
		l, err = New(p, cfg)
		return l, err
	}
	e, err := render.New(fsys, opts)
	if err != nil {
		return nil, err
	}
	if _, err := e.Each(func(*manifest.Set) error { return nil }); err != nil {
		return nil, err
	}
	return l.Findings(), nil
}

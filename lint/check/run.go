package check

import (
	"io/fs"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// Run is the check action: it loads the run's inputs, builds the linter
// for their profile and renders everything in memory with it as the
// engine's check stage, past undefined variables (they become findings).
// It returns what the rules found and the stages noted, as one list.
// Nothing is written.
func Run(fsys fs.FS, opts action.Options, cfg Config) ([]Finding, error) {
	in, err := action.Load(fsys, opts)
	if err != nil {
		return nil, err
	}
	if cfg.FS == nil {
		cfg.FS = fsys
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
// with v as its Validator.
func KRMLinter(v verdict.Validator) func(*action.Inputs, fs.FS, *loadroot.Root) (render.Stage, func() []Finding, error) {
	return func(in *action.Inputs, fsys fs.FS, root *loadroot.Root) (render.Stage, func() []Finding, error) {
		l, err := New(in.Profile, Config{FS: fsys, Root: root, Validator: v})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Findings, nil
	}
}

package action

import (
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// Check is `krender check`, the action: it loads the run's inputs, builds
// the linter (package check) for their profile and CRD files and renders
// everything in memory with it as the engine's check stage, past undefined
// variables (they become findings). Nothing is written; the files are read
// once, here, and the linter reads none.
type Check struct {
	Options
	// Verbose (check -v) adds the findings only a reviewer asks for
	// (check.Config.Verbose).
	Verbose bool
	// Validator is the API server's validation (check.Config.Validator);
	// nil: check settles what it can and returns check.ErrNeedsValidator
	// for the rest.
	Validator verdict.Validator
	// FS holds the templates, profiles and CRD files, paths as users type
	// them (see package userfs).
	FS filesys.Reader
}

// Run returns what the rules found and the stages noted, as one list.
func (c *Check) Run() ([]check.Finding, error) {
	in, err := Load(c.FS, c.Options)
	if err != nil {
		return nil, err
	}
	l, err := check.New(in.Profile, check.Config{CRDs: in.CRDs, Verbose: c.Verbose, Validator: c.Validator})
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

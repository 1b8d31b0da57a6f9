package action

import (
	"context"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/report"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
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
	// Format is the format the findings are printed in (--format, one of
	// report.Formats); "": text. Run refuses an unknown one before it
	// reads anything.
	Format string
	// FS holds the templates, profiles and CRD files, paths as users type
	// them (see package userfs).
	FS filesys.Reader
}

// CheckResult is what `krender check` prints: the findings, in the
// action's Format (report.Write).
type CheckResult struct {
	// Findings are what the rules found and the stages noted, as one list.
	Findings []check.Finding
	// Format is the Check's Format, "" read as text.
	Format string
}

// HasErrors says whether a finding is an error: `krender check` then
// exits 1.
func (r CheckResult) HasErrors() bool { return check.HasErrors(r.Findings) }

// Refuse is what Run refuses before it reads anything: an unknown Format,
// and --crds without a Validator (check.ErrNeedsValidator: custom
// resources need the API server's code). A command that hands a run over
// to a program with the Validator asks it before it holds standard input.
func (c *Check) Refuse() error {
	if err := report.Known(c.format()); err != nil {
		return err
	}
	if c.Validator == nil && len(c.CRDs) > 0 {
		return check.ErrNeedsValidator
	}
	return nil
}

func (c *Check) format() string {
	if c.Format == "" {
		return "text"
	}
	return c.Format
}

// Run renders in memory with ctx (Options.Context is ctx: cancelling it
// stops the run) and returns what the rules found and the stages noted.
func (c *Check) Run(ctx context.Context) (CheckResult, error) {
	if err := c.Refuse(); err != nil {
		return CheckResult{}, err
	}
	o := c.Options
	o.Context = ctx
	in, err := Load(c.FS, o)
	if err != nil {
		return CheckResult{}, err
	}
	l, err := linter(in.Profile, in.CRDs, c.Verbose, c.Validator)
	if err != nil {
		return CheckResult{}, err
	}
	e, err := in.Engine(l)
	if err != nil {
		return CheckResult{}, err
	}
	if _, err := e.Each(func(*manifest.Set) error { return nil }); err != nil {
		return CheckResult{}, err
	}
	return CheckResult{Findings: l.Findings(), Format: c.format()}, nil
}

// linter is check's linter for a loaded profile and its CRD files'
// objects, the stage `check` and `fn` hand the engine last but one.
func linter(p *profiles.Profile, crds []*manifest.Object, verbose bool, v verdict.Validator) (*check.Linter, error) {
	return check.New(p, check.Config{CRDs: crds, Verbose: verbose, Validator: v})
}

package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/lint/krm"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// ErrNeedsLinter is Fn.Run's answer, before it renders anything, to a
// functionConfig that asks for check's findings when the caller gave no
// Linter.
var ErrNeedsLinter = errors.New("krender fn: functionConfig asks for check's findings, which krender-check gives")

// Fn is `krender fn`, the action: it renders the ResourceList read from In
// (package krm: the KRM function's protocol) and writes the result to Out,
// only when everything succeeded: an orchestrator must never mistake half
// a list for the output.
type Fn struct {
	In  io.Reader
	Out io.Writer
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
	// Linter adds check's findings to the results, unless functionConfig
	// says spec.check: false; without one, Run returns ErrNeedsLinter for
	// a functionConfig that asks for them.
	Linter krm.Linter
}

// Run renders and writes; the notes are the stages' messages, for stderr.
func (f *Fn) Run() ([]filepos.Note, error) {
	list, err := krm.Read(f.In, f.FS)
	if err != nil {
		return nil, err
	}
	notes, err := f.run(list)
	return list.Notes(notes), list.Errors(err)
}

// fnOptions are what functionConfig asks of the render action.
func fnOptions(cfg krm.Config, items []*manifest.Object, secrets []Secret, root *loadroot.Root) Options {
	opts := Options{Profile: cfg.Profile, Templates: items, Secrets: secrets, Root: root}
	if cfg.Tenant != "" {
		opts.Tenants = []string{cfg.Tenant}
	}
	names := make([]string, 0, len(cfg.Set))
	for name := range cfg.Set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		opts.Set = append(opts.Set, name+"="+cfg.Set[name])
	}
	return opts
}

func (f *Fn) run(list *krm.List) ([]filepos.Note, error) {
	cfg, err := list.Config()
	if err != nil {
		return nil, err
	}
	lint := f.Linter
	if cfg.Check != nil && !*cfg.Check {
		lint = nil
	} else if lint == nil {
		return nil, ErrNeedsLinter
	}
	items, err := list.Items()
	if err != nil {
		return nil, err
	}

	root, err := Root(f.FS, f.Root, "") // the root must hold spec.profile: it does not choose it
	if err != nil {
		return nil, err
	}
	if err := root.Check("the profile", cfg.Profile, list.ProfilePos()); err != nil {
		return nil, err
	}
	in, err := Load(f.FS, fnOptions(cfg, items, f.Secrets, root))
	if err != nil {
		return nil, err
	}
	stage, found, err := linterFor(lint, in)
	if err != nil {
		return nil, err
	}
	e, err := in.Engine(stage)
	if err != nil {
		return nil, err
	}
	if err := oneUnit(e, cfg.Profile); err != nil {
		return nil, err
	}
	var set *manifest.Set
	res, err := e.Each(func(s *manifest.Set) error { set = s; return nil })
	if err != nil {
		return nil, err
	}
	results, err := list.Results(set, found(), mask.NewText(SecretValues(f.Secrets)))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := list.Write(&b, set.Objects, results); err != nil {
		return nil, err
	}
	_, err = b.WriteTo(f.Out)
	return res.Notes, err
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

// linterFor is lint's stage and findings, or none: spec.check: false.
func linterFor(lint krm.Linter, in *Inputs) (render.Stage, func() []rule.Finding, error) {
	if lint == nil {
		return nil, func() []rule.Finding { return nil }, nil
	}
	return lint(in.Profile, in.CRDs)
}

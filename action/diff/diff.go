// Package diff is `krender diff`, the action: what applying the head's
// render over the base's does to a cluster, per profile and tenant. Both
// sides render through the same engine, concurrently; objects are
// compared, not text. Each changed workload gets the verdict of the API
// server and its controllers (verdict.Validator): rolls, on-delete,
// next-run or none, and whether the apply is refused. It prints nothing.
package diff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/kube/lifecycle"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// Diff is `krender diff`: the head (the working tree) against the base (a
// git revision, or a second checkout), for each profile.
type Diff struct {
	// Options are the run's choices; Profile is ignored (Profiles), and
	// Tenants and Shard choose among the tenants of both sides.
	action.Options
	// Profiles are the profiles' paths (-p, repeatable), read on both sides.
	Profiles []string
	// Head and Base hold the templates and profiles of each side, paths as
	// users type them (see package userfs).
	Head, Base filesys.Reader
	// BaseName names the base in messages: the revision or the directory.
	BaseName string
	// BaseRoot is the load root on Base (Options.Root is the head's); nil:
	// Base's default root, checked.
	BaseRoot *loadroot.Root
	// Diffs asks for each change's unified diff (Change.Diff), which only
	// the markdown output shows.
	Diffs bool
	// Validator is the API server's judgement; nil: Run stops with
	// check.ErrNeedsValidator where a verdict needs it.
	Validator verdict.Validator
}

// Run renders both sides of every profile and compares them.
func (d *Diff) Run(ctx context.Context) (*Result, error) {
	d.Context = ctx // every stage of both sides stops with it
	if len(d.Profiles) == 0 {
		return nil, fmt.Errorf("a profile is required (-p PROFILE)")
	}
	if len(d.Paths) == 0 {
		//lint:ignore ST1005 "PATH..." is the usage it shows
		return nil, fmt.Errorf("no templates given: krender diff --base REF -p PROFILE PATH...")
	}
	res := &Result{Base: d.BaseName}
	for _, p := range d.Profiles {
		changes, tenants, err := d.profile(ctx, p)
		if err != nil {
			return nil, err
		}
		res.Changes = append(res.Changes, changes...)
		res.Summary.Profiles++
		res.Summary.Tenants += tenants
	}
	res.summarize()
	return res, nil
}

// side is one side of a profile's diff, loaded: nil inputs when the
// profile is not there.
type side struct {
	name string // "head", or "base (REF)"
	in   *action.Inputs
	e    *render.Engine // once made (engine)
}

// sideError says which side an error arose on.
type sideError struct {
	side string
	err  error
}

// Error is one line: the side, then the first of the side's errors.
func (e *sideError) Error() string {
	msg := e.err.Error()
	first, rest, _ := strings.Cut(msg, "\n")
	if n := strings.Count(rest, "\n") + 1; rest != "" {
		first += fmt.Sprintf(" (and %d more)", n-boolInt(strings.HasSuffix(rest, "\n")))
	}
	return e.side + ": " + first
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
func (e *sideError) Unwrap() error { return e.err }

func (d *Diff) load(fsys filesys.Reader, root *loadroot.Root, name, profile string) (*side, error) {
	s := &side{name: name}
	if _, err := userfs.Stat(fsys, profile); errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	o := d.Options
	o.Profile, o.Tenants, o.Shard, o.MemoryLimit, o.Redact, o.Root = profile, nil, action.Shard{}, nil, false, root
	o.Quiet = true // a diff says what the objects do, not what rendering them noted
	if name != "head" {
		o.CRDs = held(fsys, d.CRDs)
	}
	in, err := action.Load(fsys, o)
	if err != nil {
		return nil, &sideError{name, err}
	}
	s.in = in
	return s, nil
}

// loadBoth loads the head and the base at once; the head's error is the
// one said where both sides fail, as if loaded one after the other.
func (d *Diff) loadBoth(profile string) (head, base *side, err error) {
	var baseErr error
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		base, baseErr = d.load(d.Base, d.BaseRoot, "base at "+d.BaseName, profile)
	}()
	head, err = d.load(d.Head, d.Root, "head", profile)
	<-loaded
	if err == nil {
		err = baseErr
	}
	return head, base, err
}

// lendCRDs gives the base the head's CRDs of the kinds its own CRD files
// do not define: such a kind is judged with the head's CRD on both sides,
// and rendered so, or a custom resource that names no namespace would get
// the profile's at the head only and read as removed and added.
func lendCRDs(base, head *side) {
	if base.in == nil || head.in == nil {
		return
	}
	defined := map[schema.GroupKind]bool{}
	for _, o := range base.in.CRDs {
		if gk, ok := definedKind(o); ok {
			defined[gk] = true
		}
	}
	for _, o := range head.in.CRDs {
		if gk, ok := definedKind(o); ok && !defined[gk] {
			base.in.CRDs = append(base.in.CRDs, o)
		}
	}
}

// definedKind is the kind a CRD object defines; false for any other.
func definedKind(o *manifest.Object) (schema.GroupKind, bool) {
	group, kind, ok := o.DefinedKind()
	return schema.GroupKind{Group: group, Kind: kind}, ok
}

// held are the paths fsys holds: a --crds path the base does not hold is a
// CRD the change adds, and the base has none there.
func held(fsys filesys.Reader, paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := userfs.Stat(fsys, p); !errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// profile diffs one profile: both sides loaded, their tenants chosen
// (-t, --shard over the tenants of either side), rendered at once and
// compared tenant by tenant.
func (d *Diff) profile(ctx context.Context, profile string) ([]Change, int, error) {
	head, base, err := d.loadBoth(profile)
	if err != nil {
		return nil, 0, err
	}
	if head.in == nil && base.in == nil {
		return nil, 0, fmt.Errorf("profile %s: found neither in the working tree nor in base %s", profile, d.BaseName)
	}
	tenants, err := d.tenants(profile, head, base)
	if err != nil {
		return nil, 0, err
	}
	lendCRDs(base, head)
	pair := newPairing(profile, tenants, d, base, head)
	if pair.crds.head, err = d.crds(head); err != nil {
		return nil, 0, err
	}
	if pair.crds.base, err = d.crds(base); err != nil {
		return nil, 0, err
	}
	if err := d.engines(tenants, base, head); err != nil {
		return nil, 0, err
	}
	if err := pair.render(ctx, base, head); err != nil {
		return nil, 0, err
	}
	changes, err := pair.finish()
	return changes, len(tenants), err
}

// engines makes each side's engine, and tells the soft memory limit both
// engines at once (and the tenants one side holds for the other,
// pairing.ahead).
func (d *Diff) engines(tenants []string, sides ...*side) error {
	errs := make([]error, len(sides))
	var wg sync.WaitGroup
	for i, s := range sides { // at once, as both sides render
		if s.in != nil {
			wg.Go(func() { errs[i] = s.engine(tenants) })
		}
	}
	wg.Wait()
	var limit int64
	for i, s := range sides {
		if s.in == nil {
			continue
		}
		if errs[i] != nil {
			return errs[i]
		}
		limit += s.e.MemoryLimit()
	}
	if d.MemoryLimit != nil {
		d.MemoryLimit(limit)
	}
	return nil
}

// render renders both sides at once, each tenant compared as both sides
// have it. A side that fails stops the other: its error is the run's.
func (p *pairing) render(ctx context.Context, base, head *side) error {
	sides, stopSides := context.WithCancel(ctx)
	defer stopSides()
	defer context.AfterFunc(sides, func() { // a side waiting for the other stops too
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*side{base, head} {
		if s.in == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.done(i)
			if errs[i] = s.render(sides, func(u *unitObjects) error { return p.add(sides, i, u) }); errs[i] != nil {
				stopSides()
			}
		}()
	}
	wg.Wait()
	return firstError(ctx, errs)
}

// firstError is the base's error, else the head's (one error, one line),
// passing over a side that only stopped because the other failed.
func firstError(ctx context.Context, errs []error) error {
	var stopped error
	for _, err := range errs {
		switch {
		case err == nil:
		case ctx.Err() == nil && errors.Is(err, context.Canceled):
			stopped = err
		default:
			return err
		}
	}
	return stopped
}

// tenants are the tenants the run compares, head's order first then the
// base's own, after -t and --shard.
func (d *Diff) tenants(profile string, sides ...*side) ([]string, error) {
	var all []string
	for _, s := range sides {
		if s.in == nil {
			continue
		}
		for _, u := range s.in.Units {
			if !slices.Contains(all, u.Tenant) {
				all = append(all, u.Tenant)
			}
		}
	}
	chosen := all
	if len(d.Tenants) > 0 {
		chosen = nil
		for _, t := range d.Tenants {
			if !slices.Contains(all, t) {
				return nil, fmt.Errorf("-t %s: no such tenant in %s on either side%s", t, profile, suggest.Hint(t, all))
			}
		}
		for _, t := range all {
			if slices.Contains(d.Tenants, t) {
				chosen = append(chosen, t)
			}
		}
	}
	units := make([]render.Unit, len(chosen))
	for i, t := range chosen {
		units[i] = render.Unit{Tenant: t}
	}
	var out []string
	for _, u := range d.Shard.Of(units) {
		out = append(out, u.Tenant)
	}
	return out, nil
}

// unitObjects is one tenant's render on one side.
type unitObjects struct {
	tenant string
	vars   map[string]string
	// own are the variables the tenant's own entry of the profile sets.
	own     map[string]bool
	secret  func(string) bool
	objects []*object
}

// engine makes the side's engine for its units among tenants, in the
// order of tenants: both sides hand their tenants over in one order.
func (s *side) engine(tenants []string) error {
	var units []render.Unit
	for _, t := range tenants {
		for _, u := range s.in.Units {
			if u.Tenant == t {
				units = append(units, u)
			}
		}
	}
	s.in.Units = units
	e, err := s.in.Engine(nil)
	if err != nil {
		return &sideError{s.name, err}
	}
	s.e = e
	return nil
}

// render renders the side's units and hands each tenant's objects to
// emit, in order.
func (s *side) render(ctx context.Context, emit func(*unitObjects) error) error {
	own := map[string]map[string]bool{}
	for _, t := range s.in.Profile.Tenants {
		own[t.Name] = map[string]bool{}
		for name := range t.Vars.Map() {
			own[t.Name][name] = true
		}
	}
	e := s.e
	_, err := render.Map(e, func(set *manifest.Set) (*unitObjects, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		u := &unitObjects{tenant: set.Tenant, vars: set.Vars, own: own[set.Tenant], secret: e.SecretVar}
		for _, o := range set.Objects {
			u.objects = append(u.objects, newObject(o))
		}
		return u, nil
	}, emit)
	var ce *compareError
	switch {
	case errors.As(err, &ce):
		return ce.err // the comparison's, whichever side met it
	case err != nil && (ctx.Err() == nil || !errors.Is(err, ctx.Err())):
		return &sideError{s.name, err}
	}
	return err
}

// compareError is an error of comparing a tenant's two renders: it is
// neither side's, though the side that came second meets it.
type compareError struct{ err error }

func (e *compareError) Error() string { return e.err.Error() }
func (e *compareError) Unwrap() error { return e.err }

// ahead is how many tenants one side holds for the other before it waits:
// the two renders keep step, so that the faster side does not hold the
// whole fleet while the slower one judges its changes.
const ahead = 4

// pairing meets each tenant's two renders and compares them as soon as
// both are there, so that a fleet is never held whole: a tenant on one
// side only is compared at once, and a side more than `ahead` tenants
// ahead of the other waits for it (both hand over their tenants in one
// order, so the other side always reaches them).
type pairing struct {
	profile string
	order   map[string]int
	d       *Diff
	mu      sync.Mutex
	cond    *sync.Cond
	waiting map[string]*unitObjects // by tenant, the side that came first
	sideOf  map[string]int
	held    [2]int             // tenants waiting, by the side holding them
	ended   [2]bool            // a side's render ended (or never began)
	on      [2]map[string]bool // the tenants each side has
	// crds are each side's CRD files' definitions, for custom resources'
	// updates.
	crds    crdSides
	kube    lifecycle.Version // the head profile's kubeVersion
	changes [][]Change        // by tenant order
}

func newPairing(profile string, tenants []string, d *Diff, base, head *side) *pairing {
	p := &pairing{profile: profile, order: map[string]int{}, d: d, waiting: map[string]*unitObjects{}, sideOf: map[string]int{}, changes: make([][]Change, len(tenants))}
	p.cond = sync.NewCond(&p.mu)
	for i, t := range tenants {
		p.order[t] = i
	}
	if head.in != nil {
		p.kube = head.in.Profile.KubeVersion.Version
	}
	for i, s := range []*side{base, head} {
		p.on[i] = map[string]bool{}
		if s.in == nil {
			p.ended[i] = true
			continue
		}
		for _, u := range s.in.Units {
			p.on[i][u.Tenant] = true
		}
	}
	return p
}

// add takes one side's tenant (0 base, 1 head) and compares it with the
// other's once both came; a tenant the other side does not have is
// compared with nothing at once.
func (p *pairing) add(ctx context.Context, sideIndex int, u *unitObjects) error {
	other := 1 - sideIndex
	p.mu.Lock()
	if !p.on[other][u.tenant] {
		p.mu.Unlock()
		return p.compare(sideIndex, u, &unitObjects{tenant: u.tenant})
	}
	for p.waiting[u.tenant] == nil && p.held[sideIndex] >= ahead && !p.ended[other] && ctx.Err() == nil {
		p.cond.Wait()
	}
	them, ok := p.waiting[u.tenant]
	if !ok {
		p.waiting[u.tenant], p.sideOf[u.tenant] = u, sideIndex
		p.held[sideIndex]++
		p.mu.Unlock()
		return nil
	}
	delete(p.waiting, u.tenant)
	p.held[other]--
	p.cond.Broadcast()
	p.mu.Unlock()
	return p.compare(sideIndex, u, them)
}

// done notes that a side's render ended: the other waits for it no more.
func (p *pairing) done(sideIndex int) {
	p.mu.Lock()
	p.ended[sideIndex] = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// compare compares u, from side sideIndex, with other, the other side's
// render of its tenant.
func (p *pairing) compare(sideIndex int, u, other *unitObjects) error {
	base, head := other, u
	if sideIndex == 0 {
		base, head = u, other
	}
	changes, err := compareUnit(p, base, head)
	if err != nil {
		return &compareError{err}
	}
	p.mu.Lock()
	p.changes[p.order[u.tenant]] = changes
	p.mu.Unlock()
	return nil
}

// changedVars are the variables whose values differ between the sides.
func changedVars(base, head *unitObjects) []string {
	var out []string
	for name, v := range head.vars {
		if old, ok := base.vars[name]; !ok || old != v {
			out = append(out, name)
		}
	}
	for name := range base.vars {
		if _, ok := head.vars[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// finish compares the tenants left waiting (a side whose render stopped),
// and returns every change in tenant order.
func (p *pairing) finish() ([]Change, error) {
	for t, u := range p.waiting {
		if err := p.compare(p.sideOf[t], u, &unitObjects{tenant: t}); err != nil {
			return nil, err
		}
	}
	var out []Change
	for _, c := range p.changes {
		out = append(out, c...)
	}
	return out, nil
}

// ErrNeedsValidator is check's: a verdict needs the API server's code,
// which krender-check links.
var ErrNeedsValidator = check.ErrNeedsValidator

// secretVars is a unit's variables whose values reach a Secret.
func secretVars(u *unitObjects) func(string) bool {
	if u.secret == nil {
		return func(string) bool { return false }
	}
	return u.secret
}

// crdSides are the CRD files' definitions of each side; nil where a side
// has none.
type crdSides struct{ base, head verdict.CRDs }

// crds compiles the side's CRD files (--crds, the profile's check.crds),
// as its inputs read them from the side's own files, for the transition rules of custom
// resources' updates; nil without a Validator, CRD files or the side.
func (d *Diff) crds(s *side) (verdict.CRDs, error) {
	if d.Validator == nil || s.in == nil {
		return nil, nil
	}
	if len(s.in.CRDs) == 0 { // loaded with the side's inputs (action.Load)
		return nil, nil
	}
	cs, err := d.Validator.CRDs(s.in.CRDs)
	if err != nil {
		return nil, &sideError{s.name, err}
	}
	return cs, nil
}

package render

import (
	"fmt"
	"slices"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// Result is what a run produced besides the manifests: notes for stderr,
// one per template position, naming the zone copies and tenants it holds for.
type Result struct {
	Notes []filepos.Note
	seen  map[string]int
}

func (r *Result) add(notes []filepos.Note) {
	if r.seen == nil {
		r.seen = map[string]int{}
	}
	for _, n := range notes {
		k := n.Key()
		i, ok := r.seen[k]
		if !ok {
			r.seen[k] = len(r.Notes)
			n.Zones, n.Tenants = slices.Clone(n.Zones), slices.Clone(n.Tenants)
			r.Notes = append(r.Notes, n)
			continue
		}
		m := &r.Notes[i]
		for _, z := range n.Zones {
			m.Zones = filepos.AddSorted(m.Zones, z)
		}
		for _, t := range n.Tenants {
			m.Tenants = filepos.AddSorted(m.Tenants, t)
		}
	}
}

// renderAt renders unit i, naming the tenant in its errors. With
// Config.Once the last unit takes the templates, once every other unit
// has its copy.
func (e *Engine) renderAt(i int) (*manifest.Set, error) {
	u := e.Units[i]
	if err := e.stopped(); err != nil {
		if e.once && i < len(e.Units)-1 {
			e.copying.Done() // the last unit waits for no copy this unit will not make
		}
		return nil, err
	}
	take := e.once && i == len(e.Units)-1
	if take {
		e.copying.Wait()
	}
	s, err := e.render(u, take, func() {
		if e.once && !take {
			e.copying.Done()
		}
	})
	if err != nil {
		return nil, inTenant(redactErr(err, redactor(e.secret, u.Vars.Map())), u.Tenant)
	}
	return s, nil
}

// stopped is why the run must stop (its Context is done), or nil.
func (e *Engine) stopped() error { return (&manifest.Set{Context: e.ctx}).Stopped() }

// Map renders the units in parallel, turns each set into a T on the same
// goroutine (so that encoding is parallel too), and hands those to emit in
// unit order. Output therefore does not depend on the number of workers.
func Map[T any](e *Engine, conv func(*manifest.Set) (T, error), emit func(T) error) (*Result, error) {
	type unit struct {
		notes []filepos.Note
		v     T
		at    []filepos.Pos // of the objects, counted against limits.objects
	}
	if e.spent {
		return nil, fmt.Errorf("internal error: the engine has rendered once (Config.Once)")
	}
	if e.once {
		e.spent = true
		e.copying.Add(max(0, len(e.Units)-1))
	}
	res := &Result{}
	total := 0
	err := inOrder(len(e.Units), e.workers(), e.window(),
		func(i int) (unit, error) {
			s, err := e.renderAt(i)
			if err != nil {
				return unit{}, err
			}
			at := make([]filepos.Pos, len(s.Objects))
			for k, o := range s.Objects {
				at[k] = o.Pos(o.Node)
			}
			v, err := conv(s)
			return unit{s.Notes, v, at}, err
		},
		func(i int, u unit) error {
			if limit := e.limits.OrDefault().Objects; total+len(u.at) > limit {
				return inTenant(limits.TooManyObjects(u.at[limit-total], limit), e.Units[i].Tenant)
			}
			total += len(u.at)
			res.add(u.notes)
			return emit(u.v)
		})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Each renders every unit and hands each set to f, in unit order and on the
// calling goroutine; the units themselves render in parallel.
func (e *Engine) Each(f func(*manifest.Set) error) (*Result, error) {
	return Map(e, func(s *manifest.Set) (*manifest.Set, error) { return s, nil }, f)
}

// inTenant says which tenant an error arose in, after each message so that
// lines still start with the template position.
func inTenant(err error, tenant string) error {
	if tenant == "" {
		return err
	}
	suffix := filepos.Scope(nil, []string{tenant}, 0) // " (tenant t)", as notes and check say it
	if out := filepos.Rewrite(err, func(e filepos.Error) filepos.Error { e.Msg += suffix; return e }); out != nil {
		return out
	}
	return fmt.Errorf("tenant %s: %w", tenant, err)
}

package render

import (
	"fmt"
	"slices"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
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

// renderAt renders unit i, naming the tenant in its errors.
func (e *Engine) renderAt(i int) (*manifest.Set, error) {
	u := e.Units[i]
	s, err := e.Render(u)
	if err != nil {
		return nil, inTenant(redactErr(err, redactor(e.secret, u.Vars.Map())), u.Tenant)
	}
	return s, nil
}

// Map renders the units in parallel, turns each set into a T on the same
// goroutine (so that encoding is parallel too), and hands those to emit in
// unit order. Output therefore does not depend on the number of workers.
func Map[T any](e *Engine, conv func(*manifest.Set) (T, error), emit func(T) error) (*Result, error) {
	type unit struct {
		notes []filepos.Note
		v     T
		n     int // objects, counted against limits.objects
	}
	res := &Result{}
	total := 0
	err := inOrder(len(e.Units), e.workers(), e.window(),
		func(i int) (unit, error) {
			s, err := e.renderAt(i)
			if err != nil {
				return unit{}, err
			}
			v, err := conv(s)
			return unit{s.Notes, v, len(s.Objects)}, err
		},
		func(i int, u unit) error {
			if total+u.n > e.limits.OrDefault().Objects {
				// Rendered again for the position, on this error path only:
				// holding every unit's objects until emit costs memory.
				s, err := e.renderAt(i)
				if err != nil {
					return err
				}
				return inTenant(e.objectLimit(total, s.Objects), e.Units[i].Tenant)
			}
			total += u.n
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
	suffix := " (tenant " + tenant + ")"
	switch e := err.(type) {
	case *filepos.Error:
		return &filepos.Error{Pos: e.Pos, Msg: e.Msg + suffix}
	case filepos.List:
		out := make(filepos.List, len(e))
		for i, x := range e {
			out[i] = &filepos.Error{Pos: x.Pos, Msg: x.Msg + suffix}
		}
		return out
	}
	return fmt.Errorf("tenant %s: %w", tenant, err)
}

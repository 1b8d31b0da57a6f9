package zones

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
)

// StageName marks the nodes this stage makes (manifest.Object.Made).
const StageName = "zones"

// Stage applies the profile's zone host data to every render unit.
type Stage struct{ c *config }

// New validates the profile's zones and zoneHosts. With no zoneHosts (or
// strategy off) the stage changes nothing.
func New(p *profiles.Profile) (*Stage, error) {
	c, err := compile(p)
	if err != nil {
		return nil, err
	}
	return &Stage{c: c}, nil
}

// objKey identifies an object within a render unit.
type objKey struct{ ns, kind, name string }

// splitResult is what became of one workload.
type splitResult struct {
	group  string
	copies []*manifest.Object // one per zone, in profile order
}

// applyRun is one Apply: the objects replaced by their per-zone copies and
// the count of objects the set will hold, checked against its limit.
type applyRun struct {
	c        *config
	s        *manifest.Set
	splits   map[objKey]*splitResult
	replaced map[*manifest.Object][]*manifest.Object
	count    int
	limit    int
}

func (st *Stage) Apply(s *manifest.Set) error {
	c := st.c
	if c.strategy == Off {
		return nil
	}
	r := &applyRun{c: c, s: s, splits: map[objKey]*splitResult{}, replaced: map[*manifest.Object][]*manifest.Object{},
		count: len(s.Objects), limit: s.Limits.OrDefault().Objects}
	if err := r.workloads(); err != nil {
		return err
	}
	if err := r.autoscalers(); err != nil {
		return err
	}
	if len(r.replaced) == 0 {
		return nil
	}
	return r.replace()
}

// grow accounts for o being replaced by one copy per zone; it fails before
// the copies are made when the set would exceed its limit.
func (r *applyRun) grow(o *manifest.Object) error {
	if r.count += len(r.c.zones) - 1; r.count > r.limit {
		return limits.TooManyObjects(o.Pos(o.Node), r.limit)
	}
	return nil
}

// workloads gives each pod-owning object its zone's entries or splits it.
func (r *applyRun) workloads() error {
	c, s := r.c, r.s
	var errs filepos.List
	for _, o := range s.Objects {
		if err := s.Stopped(); err != nil {
			return err
		}
		spec := workload.PodSpec(o)
		if spec == nil || c.exclude[o.Name()] {
			continue
		}
		z, err := c.zoneFor(o, spec)
		switch {
		case err != nil:
			errs = append(errs, err)
		case z != nil:
			errs = filepos.Append(errs, c.setHostAliases(o, spec, z))
		default:
			if err := r.grow(o); err != nil {
				return err
			}
			copies, err := c.split(s, o)
			if err != nil {
				errs = filepos.Append(errs, err)
				continue
			}
			r.replaced[o] = copies
			r.splits[objKey{s.NamespaceOf(o), o.Kind(), o.Name()}] = &splitResult{group: o.Group(), copies: copies}
		}
	}
	return errs.Err()
}

// autoscalers splits each HorizontalPodAutoscaler whose target was split,
// and notes the other objects that name a split workload.
func (r *applyRun) autoscalers() error {
	c, s := r.c, r.s
	var errs filepos.List
	for _, o := range s.Objects {
		if o.Kind() != "HorizontalPodAutoscaler" {
			c.noteOtherTargets(s, o, r.splits)
			continue
		}
		w := c.target(s, o, r.splits)
		if w == nil {
			continue
		}
		if err := r.grow(o); err != nil {
			return err
		}
		copies, err := c.splitHPA(s, o, w)
		if err != nil {
			errs = filepos.Append(errs, err)
			continue
		}
		r.replaced[o] = copies
	}
	return errs.Err()
}

// replace puts each replaced object's copies where it stood.
func (r *applyRun) replace() error {
	s := r.s
	out := make([]*manifest.Object, 0, len(s.Objects)+len(r.replaced)*len(r.c.zones))
	for _, o := range s.Objects {
		if copies, ok := r.replaced[o]; ok {
			out = append(out, copies...)
			continue
		}
		out = append(out, o)
	}
	if err := collisions(s, out, r.replaced); err != nil {
		return err
	}
	s.Objects = out
	return nil
}

// zoneFor is the zone whose entries o's pods get, or nil when o is to be split.
func (c *config) zoneFor(o *manifest.Object, spec *yaml.Node) (*zone, *filepos.Error) {
	if pin, at := pinned(spec); at != nil {
		if z := c.byName[pin]; z != nil {
			return z, nil
		}
		return nil, filepos.Errorf(o.Pos(at), "%s %s is pinned to zone %s, which the profile does not define (zones: %s)",
			o.Kind(), o.Name(), pin, c.names())
	}
	if c.strategy == Static {
		return c.zone, nil
	}
	if workload.Splittable(o) {
		return nil, nil
	}
	if c.zone != nil {
		return c.zone, nil
	}
	return nil, filepos.Errorf(namePos(o), "%s %s cannot be split by zone (only Deployments, StatefulSets and Rollouts are) and is not pinned to one: "+
		"pin it with nodeSelector %s, list it under zoneHosts.exclude, or set zoneHosts.zone to give it that zone's hostAliases",
		o.Kind(), o.Name(), ZoneKey)
}

// target is the split workload an HPA scales, if any.
func (c *config) target(s *manifest.Set, hpa *manifest.Object, splits map[objKey]*splitResult) *splitResult {
	ref := manifest.Value(hpa.Node, "spec")
	ref = manifest.Value(ref, "scaleTargetRef")
	w := splits[objKey{s.NamespaceOf(hpa), manifest.ScalarAt(ref, "kind"), manifest.ScalarAt(ref, "name")}]
	if w == nil || groupOf(manifest.ScalarAt(ref, "apiVersion")) != w.group {
		return nil
	}
	return w
}

// noteOtherTargets warns about objects other than HPAs that point at a split
// workload by name (a VerticalPodAutoscaler, a KEDA ScaledObject): krender
// cannot know how to divide them, and the original name no longer exists.
func (c *config) noteOtherTargets(s *manifest.Set, o *manifest.Object, splits map[objKey]*splitResult) {
	if len(splits) == 0 {
		return
	}
	manifest.Walk(o.Node, func(m *yaml.Node) {
		for _, key := range []string{"scaleTargetRef", "targetRef"} {
			ref := manifest.Value(m, key)
			w := splits[objKey{s.NamespaceOf(o), manifest.ScalarAt(ref, "kind"), manifest.ScalarAt(ref, "name")}]
			if w == nil {
				continue
			}
			var names []string
			for _, cp := range w.copies {
				names = append(names, cp.Name())
			}
			s.Note(o, ruleid.SplitTarget, filepos.Warning, o.Pos(manifest.Value(ref, "name")), fmt.Sprintf(
				"%s %s targets %s %s, which is split by zone into %s; krender splits only HorizontalPodAutoscalers, so give this one a copy per zone",
				o.Kind(), o.Name(), manifest.ScalarAt(ref, "kind"), manifest.ScalarAt(ref, "name"), strings.Join(names, ", ")))
		}
	})
}

// collisions rejects a copy whose name another object of the unit already has.
func collisions(s *manifest.Set, out []*manifest.Object, replaced map[*manifest.Object][]*manifest.Object) error {
	isCopy := map[*manifest.Object]bool{}
	for _, copies := range replaced {
		for _, c := range copies {
			isCopy[c] = true
		}
	}
	first := map[objKey]*manifest.Object{}
	var errs filepos.List
	for _, o := range out {
		k := objKey{s.NamespaceOf(o), o.Kind(), o.Name()}
		prev, dup := first[k]
		switch {
		case !dup:
			first[k] = o
		case isCopy[o]:
			errs = append(errs, filepos.Errorf(namePos(o), "zone copy %s %s has the name of the %s at %s", o.Kind(), o.Name(), prev.Kind(), namePos(prev)))
		case isCopy[prev]:
			errs = append(errs, filepos.Errorf(namePos(prev), "zone copy %s %s has the name of the %s at %s", prev.Kind(), prev.Name(), o.Kind(), namePos(o)))
		}
	}
	return errs.Err()
}

func namePos(o *manifest.Object) filepos.Pos {
	if n := manifest.Lookup(o.Node, "metadata", "name"); n != nil {
		return o.Pos(n)
	}
	return o.Pos(o.Node)
}

func groupOf(apiVersion string) string {
	if g, _, ok := strings.Cut(apiVersion, "/"); ok {
		return g
	}
	return ""
}

package krm

import (
	"strings"

	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/lint/rule"
	"github.com/krender/krender/model/manifest"
)

// findings turns check findings on the rendered objs into results,
// masking secret values.
func findings(loc *locator, objs []*manifest.Object, fs []rule.Finding, mask *mask.Text) []Result {
	byRef := map[string]*manifest.Object{}
	for _, o := range objs {
		byRef[o.Kind()+"/"+o.Name()] = o
	}
	for _, o := range objs {
		// a finding in zone copies names the object as written: point at the first copy
		if w, _ := o.AsWritten(""); byRef[w] == nil {
			byRef[w] = o
		}
	}
	var out []Result
	for _, f := range fs {
		pos, _ := loc.locate(f.Pos, "")
		r := Result{
			Message:  mask.String(strings.TrimSuffix(f.Msg, ".") + ". Fix: " + f.Fix),
			Severity: f.Severity.String(),
			Tags:     map[string]string{"rule": f.Rule, "position": pos.String()},
		}
		if o := byRef[f.Object]; o != nil {
			r.ResourceRef = &ResourceRef{APIVersion: o.APIVersion(), Kind: o.Kind(), Name: o.Name(), Namespace: o.Namespace()}
			if e := loc.entryAt(f.Pos); e != nil && f.Pos.File == loc.src.Path {
				if p, _ := pathAt(e.node, f.Pos); len(p.steps) > 0 {
					r.Field = &Field{Path: p.String()}
				}
			}
			if or := originOf(o.Node); or.file != "" {
				r.File = &File{Path: or.file, Index: max(or.index, 0)}
			}
		}
		if r.File == nil && f.Pos.File != loc.src.Path && f.Pos.File != "" {
			r.File = &File{Path: f.Pos.File} // an injected fragment's file
		}
		out = append(out, r)
	}
	return out
}

package crd

import (
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// Check says what the API server would of every CRD and custom resource of
// s, and of the CRD files: the CRDs of the render answer for their kinds
// before the files do, since they are what gets applied. Each distinct CRD
// is compiled, and each distinct custom resource validated, once per run.
func (c *Catalog) Check(s *manifest.Set) map[*manifest.Object]verdict.Custom {
	out := map[*manifest.Object]verdict.Custom{}
	var inRender []*Definition
	for _, o := range s.Objects {
		if !verdict.IsDefinition(o) {
			continue
		}
		d, err := c.Compile(o)
		if err != nil {
			out[o] = verdict.Custom{Err: err}
			continue
		}
		inRender = append(inRender, d)
		out[o] = verdict.Custom{Defined: true, Problems: d.Problems}
	}
	for _, d := range c.Files {
		out[d.Object] = verdict.Custom{Defined: true, Problems: d.Problems}
	}
	for _, o := range s.Objects {
		if !verdict.IsCustom(o) {
			continue
		}
		d := c.Lookup(inRender, o)
		if d == nil {
			out[o] = verdict.Custom{}
			continue
		}
		ps, err := c.Validate(d, o, s.NamespaceOf(o))
		out[o] = verdict.Custom{Defined: err == nil, Problems: ps, Err: err}
	}
	return out
}

// Definitions are the CRD files' objects, in the order given.
func (c *Catalog) Definitions() []*manifest.Object {
	out := make([]*manifest.Object, len(c.Files))
	for i, d := range c.Files {
		out[i] = d.Object
	}
	return out
}

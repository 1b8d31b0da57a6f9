package check

import (
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render"
)

// KRMLinter is check's linter for krender fn's results (a krm.Linter),
// with v as its Validator: it takes the loaded profile and CRD files, not
// the loaded run, so that the linter needs nothing of the actions above it.
func KRMLinter(v verdict.Validator) func(*profiles.Profile, []*manifest.Object) (render.Stage, func() []Finding, error) {
	return func(p *profiles.Profile, crds []*manifest.Object) (render.Stage, func() []Finding, error) {
		l, err := New(p, Config{CRDs: crds, Validator: v})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Findings, nil
	}
}

package check

import (
	"io/fs"

	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render"
)

// KRMLinter is check's linter for krender fn's results (a krm.Linter),
// with v as its Validator: it takes the loaded profile, not the loaded
// run, so that the linter needs nothing of the actions above it.
func KRMLinter(v verdict.Validator) func(*profiles.Profile, fs.FS, *loadroot.Root) (render.Stage, func() []Finding, error) {
	return func(p *profiles.Profile, fsys fs.FS, root *loadroot.Root) (render.Stage, func() []Finding, error) {
		l, err := New(p, Config{FS: fsys, Root: root, Validator: v})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Findings, nil
	}
}

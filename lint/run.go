package lint

import (
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/render"
)

// Run renders everything in memory, past undefined variables (they become
// findings), and returns what the rules found, with the stages' own notes.
// Nothing is written.
func Run(e *render.Engine) ([]Finding, *render.Result, error) {
	l, err := New(e.Profile)
	if err != nil {
		return nil, nil, err
	}
	e.AllowUnresolved = true
	e.Stages = append(e.Stages, l)
	res, err := e.Each(func(*manifest.Set) error { return nil })
	if err != nil {
		return nil, nil, err
	}
	return l.Findings(), res, nil
}

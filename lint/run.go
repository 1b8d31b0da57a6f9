package lint

import (
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/render"
)

// Run renders everything in memory, past undefined variables (they become
// findings), and returns what the rules found. Nothing is written.
func Run(e *render.Engine) ([]Finding, error) {
	l, err := New(e.Profile)
	if err != nil {
		return nil, err
	}
	e.AllowUnresolved = true
	e.Stages = append(e.Stages, l)
	if _, err := e.Each(func(*manifest.Set) error { return nil }); err != nil {
		return nil, err
	}
	return l.Findings(), nil
}

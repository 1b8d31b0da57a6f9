package render

import (
	"github.com/krender/krender/hash"
	"github.com/krender/krender/inject"
	"github.com/krender/krender/profiles"
	"github.com/krender/krender/zones"
)

// buildStages lists the stages in pipeline order. Each is built once per run,
// so expressions are compiled and fragments parsed once, not per tenant.
func buildStages(fsys FS, p *profiles.Profile) ([]Stage, error) {
	var stages []Stage
	in, err := inject.New(fsys.ReadFile, p)
	if err != nil {
		return nil, err
	}
	stages = append(stages, in)
	z, err := zones.New(p)
	if err != nil {
		return nil, err
	}
	stages = append(stages, z)
	hs, err := hash.New(p.Hash)
	if err != nil {
		return nil, err
	}
	stages = append(stages, hs) // last: it hashes the final objects
	return stages, nil
}

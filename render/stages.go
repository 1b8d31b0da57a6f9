package render

import (
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
	"github.com/krender/krender/render/inject"
	"github.com/krender/krender/render/inject/yqexpr"
	"github.com/krender/krender/render/istio"
	"github.com/krender/krender/render/subst"
	"github.com/krender/krender/render/zones"
)

// buildStages is the pipeline, in order. Each stage is built once per run,
// so expressions are compiled and fragments parsed once, not per unit; a
// stage that cannot be built (a bad profile section) fails the run before
// any unit renders. ns writes the namespace; check is `krender check`'s linter, or nil; redacted is
// --redact's stage, or nil.
func buildStages(fragments func(string) ([]byte, error), p *profiles.Profile, yq yqexpr.Syntax, sub *subst.Stage, ns Stage, check, redacted Stage) ([]Stage, error) {
	in, err := inject.New(fragments, p, yq)
	if err != nil {
		return nil, err
	}
	z, err := zones.New(p)
	if err != nil {
		return nil, err
	}
	hs, err := contenthash.New(p.Hash)
	if err != nil {
		return nil, err
	}
	stages := []Stage{
		sub,                           // the profile's variables, nothing else
		duplicateKeys{},               // a substituted key may now collide
		ns,                            // namespace: (or -n) into namespaced objects that name none
		in,                            // fragments, after substitution: their `$` belongs to the shell
		istio.Guard{On: p.IstioGuard}, // pods that write /etc/hosts wait for the proxy
		z,                             // per-zone hostAliases; split copies workloads
		hs,                            // content hashes: last change to the objects
	}
	if check != nil {
		stages = append(stages, check) // sees krender.io/ignore before it is stripped
	}
	stages = append(stages, stripDirectives{})
	if redacted != nil {
		stages = append(stages, redacted) // last: every stage above sees the values
	}
	return stages, nil
}

// duplicateKeys refuses a mapping with a key twice: Kubernetes would keep
// one of them silently.
type duplicateKeys struct{}

func (duplicateKeys) Apply(s *manifest.Set) error {
	var errs filepos.List
	for _, o := range s.Objects {
		if err := s.Stopped(); err != nil {
			return err
		}
		if err := manifest.CheckDuplicateKeys(o.Src, o.Node); err != nil {
			errs = filepos.Append(errs, err)
		}
	}
	return errs.Err()
}

// KeptAnnotations are krender.io/ annotations that krender writes as output.
var KeptAnnotations = []string{contenthash.ConfigHashKey}

// stripDirectives removes the krender.io/ annotations that told stages what
// to do; the API server has no use for them.
type stripDirectives struct{}

func (stripDirectives) Apply(s *manifest.Set) error {
	for _, o := range s.Objects {
		o.StripDirectives(KeptAnnotations...)
	}
	return nil
}

package check

import (
	"errors"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/lint/fieldcheck/fastpath"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// ErrNeedsValidator is check's answer, without a Validator, to a run that
// needs the API server's validation: CRDs, or an object the tables cannot
// settle. krender then runs the command in krender-check.
var ErrNeedsValidator = errors.New("check needs the API server's validation, which krender-check links")

// needValidator marks the run as one only a Validator can finish.
func (c *ctx) needValidator() { c.needs = true }

// fields is what strict decoding finds in o: nothing where the fast path
// is sure, the Validator's answer otherwise.
func (c *ctx) fields(o *manifest.Object) ([]verdict.Problem, error) {
	if judged, clean := fastpath.Object(o); !judged || clean {
		return nil, nil
	}
	if c.v == nil {
		c.needValidator()
		return nil, nil
	}
	return c.v.Fields(o)
}

// podTemplate is what strict decoding finds in the pod template at path
// in custom workload o.
func (c *ctx) podTemplate(o *manifest.Object, path []string) ([]verdict.Problem, error) {
	n := manifest.Lookup(o.Node, path...)
	if n == nil || n.Kind != yaml.MappingNode || fastpath.PodTemplate(o, path) {
		return nil, nil
	}
	if c.v == nil {
		c.needValidator()
		return nil, nil
	}
	return c.v.PodTemplate(o, path)
}

// crds compiles the CRD files' definitions with v. Without a Validator
// there are none to compile, or the run needs one.
func crds(v verdict.Validator, objs []*manifest.Object) (verdict.CRDs, error) {
	if v != nil {
		return v.CRDs(objs)
	}
	for _, o := range objs {
		if verdict.IsDefinition(o) {
			return nil, ErrNeedsValidator
		}
	}
	return nil, nil
}

package check

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/crd"
	"github.com/krender/krender/fieldcheck"
	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
	"github.com/krender/krender/workload"
)

// checked is what the CRD rules know of one object: the definition it was
// checked against (nil: none found) and what the API server would say.
type checked struct {
	def      *crd.Definition
	problems []crd.Problem
}

// customResources validates every custom resource of the set once, for all
// the rules that report on it, against the CRDs of the render, then of the
// files. CRDs themselves are entries too, with their own problems.
func (c *ctx) customResources() map[*manifest.Object]checked {
	if c.custom != nil {
		return c.custom
	}
	c.custom = map[*manifest.Object]checked{}
	var inRender []*crd.Definition
	for _, o := range c.set.Objects {
		if crd.IsDefinition(o) {
			d, err := c.crds.Compile(o)
			if err != nil {
				c.failed(o, err)
				continue
			}
			inRender = append(inRender, d)
			c.custom[o] = checked{d, d.Problems}
		}
	}
	for _, d := range c.crds.Files {
		c.custom[d.Object] = checked{d, d.Problems}
	}
	for _, o := range c.set.Objects {
		if !crd.IsCustom(o) {
			continue
		}
		d := c.crds.Lookup(inRender, o)
		if d == nil {
			c.custom[o] = checked{}
			continue
		}
		ps, err := c.crds.Validate(d, o, c.set.NamespaceOf(o))
		if err != nil {
			c.failed(o, err)
			continue
		}
		c.custom[o] = checked{d, ps}
	}
	return c.custom
}

// failed reports an object that could not be checked at all.
func (c *ctx) failed(o *manifest.Object, err error) {
	c.report(o, nil, filepos.Err, "cannot check against the CRD: "+err.Error(), "report this as a krender bug")
}

// eachProblem calls f for every problem of kind k: the set's objects in
// order, then the CRD files'.
func (c *ctx) eachProblem(k crd.ProblemKind, f func(o *manifest.Object, p crd.Problem)) {
	custom := c.customResources()
	objs := c.set.Objects[:len(c.set.Objects):len(c.set.Objects)]
	for _, d := range c.crds.Files {
		objs = append(objs, d.Object)
	}
	for _, o := range objs {
		for _, p := range custom[o].problems {
			if p.Kind == k {
				f(o, p)
			}
		}
	}
}

func crdUnknownField(c *ctx) {
	c.eachProblem(crd.UnknownField, func(o *manifest.Object, p crd.Problem) {
		c.report(o, p.Node, filepos.Err, p.Msg+": the API server rejects it under strict field validation (kubectl's default) and drops it otherwise",
			"fix the field name or its place (kubectl explain "+strings.ToLower(o.Kind())+" --recursive shows the CRD's schema once it is applied)")
	})
}

func crdSchema(c *ctx) {
	c.eachProblem(crd.Invalid, func(o *manifest.Object, p crd.Problem) {
		fix := "fix the value: the CRD's schema and x-kubernetes-validations rules are what the API server enforces"
		switch {
		case crd.IsDefinition(o):
			fix = "fix the CustomResourceDefinition: the API server rejects it, so its kind is not served"
		case p.Path() == "apiVersion":
			fix = "use a version the CRD serves"
		case p.Path() == "kind":
			fix = "fix the CustomResourceDefinition first"
		}
		c.report(o, p.Node, filepos.Err, p.Msg, fix)
	})
}

// crdDeprecated is api-deprecated for custom resources: a version their CRD
// marks deprecated, whatever the cluster's release.
func crdDeprecated(c *ctx) {
	c.eachProblem(crd.Deprecated, func(o *manifest.Object, p crd.Problem) {
		c.report(o, p.Node, filepos.Warning, p.Msg, "move to a version the CRD does not mark deprecated")
	})
}

func crdMissing(c *ctx) {
	sev, what := filepos.Info, "its fields are not checked"
	if r := c.profile.Check.RequireCRDs; r != nil && *r {
		sev, what = filepos.Err, "the profile's check.requireCRDs asks for one"
	}
	custom := c.customResources()
	for _, o := range c.set.Objects {
		if ch, ok := custom[o]; ok && ch.def == nil {
			c.report(o, manifest.Lookup(o.Node, "kind"), sev,
				fmt.Sprintf("no CustomResourceDefinition for %s %s in the render or the CRD files: %s", o.APIVersion(), o.Kind(), what),
				"give its CRD with --crds FILE|DIR or the profile's check.crds")
		}
	}
}

// templateField: a custom workload's CRD often leaves the pod template open
// (Argo Rollouts keeps spec.template with x-kubernetes-preserve-unknown-fields),
// so the API server takes a misspelled pod field, and the controller, which
// reads the template as a PodTemplateSpec, silently drops it. Fields the
// CRD's own schema already flags are not reported twice.
func templateField(c *ctx) {
	custom := c.customResources()
	for _, o := range c.set.Objects {
		path := workload.TemplatePath(o.Kind(), o.Group())
		if len(path) == 0 || !crd.IsCustom(o) {
			continue
		}
		problems, err := fieldcheck.CheckPodTemplate(o, path)
		if err != nil {
			c.failed(o, err)
			continue
		}
		flagged := map[*yaml.Node]bool{}
		for _, p := range custom[o].problems {
			flagged[p.Node] = true
		}
		for _, p := range problems {
			if flagged[p.Node] {
				continue
			}
			effect := "the API server keeps it, and the controller drops it when it builds pods"
			if !strings.HasPrefix(p.Msg, "unknown field") {
				effect = "the API server keeps it, and the controller cannot read the object"
			}
			c.report(o, p.Node, filepos.Err, p.Msg+": "+effect, "fix the field name or type (kubectl explain pod.spec shows the schema)")
		}
	}
}

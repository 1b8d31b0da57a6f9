package check

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
)

// customResources is what the API server says of every CRD and custom
// resource of the set and of the CRD files, once for all the rules that
// report on them. Without CRDs, custom resources have no definition, and
// a CRD in the render needs the Validator.
func (c *ctx) customResources() map[*manifest.Object]verdict.Custom {
	if c.custom != nil {
		return c.custom
	}
	if c.crds != nil {
		c.custom = c.crds.Check(c.set)
	} else {
		c.custom = map[*manifest.Object]verdict.Custom{}
		for _, o := range c.set.Objects {
			switch {
			case verdict.IsDefinition(o):
				c.needValidator()
			case verdict.IsCustom(o):
				c.custom[o] = verdict.Custom{}
			}
		}
	}
	for _, o := range c.set.Objects {
		if err := c.custom[o].Err; err != nil {
			c.failed(o, err)
		}
	}
	return c.custom
}

// failed reports an object that could not be checked at all.
func (c *ctx) failed(o *manifest.Object, err error) {
	c.report(o, nil, filepos.Err, "cannot check against the CRD: "+err.Error(), "report this as a krender bug")
}

// eachProblem calls f for every problem of kind k: the set's objects in
// order, then the CRD files'.
func (c *ctx) eachProblem(k verdict.Kind, f func(o *manifest.Object, p verdict.Problem)) {
	custom := c.customResources()
	objs := c.set.Objects[:len(c.set.Objects):len(c.set.Objects)]
	if c.crds != nil {
		objs = append(objs, c.crds.Definitions()...)
	}
	for _, o := range objs {
		for _, p := range custom[o].Problems {
			if p.Kind == k {
				f(o, p)
			}
		}
	}
}

func crdUnknownField(c *ctx) {
	c.eachProblem(verdict.UnknownField, func(o *manifest.Object, p verdict.Problem) {
		c.report(o, p.Node, filepos.Err, p.Msg+": the API server rejects it under strict field validation (kubectl's default) and drops it otherwise",
			"fix the field name or its place (kubectl explain "+strings.ToLower(o.Kind())+" --recursive shows the CRD's schema once it is applied)")
	})
}

func crdSchema(c *ctx) {
	c.eachProblem(verdict.Invalid, func(o *manifest.Object, p verdict.Problem) {
		fix := "fix the value: the CRD's schema and x-kubernetes-validations rules are what the API server enforces"
		switch {
		case verdict.IsDefinition(o):
			fix = "fix the CustomResourceDefinition: the API server rejects it, so its kind is not served"
		case p.Path == "apiVersion":
			fix = "use a version the CRD serves"
		case p.Path == "kind":
			fix = "fix the CustomResourceDefinition first"
		}
		c.report(o, p.Node, filepos.Err, p.Msg, fix)
	})
}

// crdDeprecated is api-deprecated for custom resources: a version their CRD
// marks deprecated, whatever the cluster's release.
func crdDeprecated(c *ctx) {
	c.eachProblem(verdict.Deprecated, func(o *manifest.Object, p verdict.Problem) {
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
		if ch, ok := custom[o]; ok && !ch.Defined && ch.Err == nil {
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
		if len(path) == 0 || !verdict.IsCustom(o) {
			continue
		}
		problems, err := c.podTemplate(o, path)
		if err != nil {
			c.failed(o, err)
			continue
		}
		flagged := map[*yaml.Node]bool{}
		for _, p := range custom[o].Problems {
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

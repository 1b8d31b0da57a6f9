// Package crd checks custom resources against their CustomResourceDefinitions
// offline with the API server's own code (k8s.io/apiextensions-apiserver):
// structural schemas, pruning, defaulting, x-kubernetes-* extensions and CEL
// rules. A JSON-Schema conversion of a CRD (what kubeconform uses) loses
// int-or-string, preserve-unknown-fields, nullable and CEL, and so both
// flags good objects and misses bad ones; this package runs the same steps,
// in the same order, as a create request for the resource.
package crd

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	kjson "sigs.k8s.io/json"

	"github.com/krender/krender/kube/kubescheme"
	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

// Definition is one CRD compiled for validation: immutable, safe for
// concurrent use.
type Definition struct {
	Name       string // plural.group
	GroupKind  schema.GroupKind
	Namespaced bool
	Object     *manifest.Object // where it was written
	// Problems are what the API server would reject the CRD itself for;
	// a definition with problems validates nothing.
	Problems []Problem
	versions map[string]*version
	// viaJSON makes Validate read resources through JSON only: tests
	// compare that with reading them from the node tree.
	viaJSON bool
}

type version struct {
	name            string
	served          bool
	deprecated      bool
	warning         string
	structural      *structuralschema.Structural // defaults pruned, as served
	validator       apiservervalidation.SchemaValidator
	cel             *cel.Validator
	status          bool
	scale           *apiextensionsinternal.CustomResourceSubresourceScale
	preserveUnknown bool
}

// Catalog holds the CRDs of one run: compiled once, whether they come from
// files or from each tenant's render.
type Catalog struct {
	mu       sync.Mutex
	compiled map[[sha256.Size]byte]*Definition
	files    map[schema.GroupKind]*Definition
	// Files are the compiled CRD files, in the order given.
	Files []*Definition

	validated   map[memoKey][]Problem // guarded by mu
	validations atomic.Int64          // validations run (not remembered)
}

// NewCatalog compiles the CRDs read from files (objects of other kinds are
// ignored); they answer for kinds the render defines no CRD of.
func NewCatalog(objs []*manifest.Object) (*Catalog, error) {
	c := &Catalog{compiled: map[[sha256.Size]byte]*Definition{}, files: map[schema.GroupKind]*Definition{}}
	for _, o := range objs {
		if !verdict.IsDefinition(o) {
			continue
		}
		d, err := c.Compile(o)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, d)
		if _, dup := c.files[d.GroupKind]; !dup {
			c.files[d.GroupKind] = d
		}
	}
	return c, nil
}

// Compile compiles a CRD object, or returns the definition already compiled
// from the same content. An error means o could not be read at all.
func (c *Catalog) Compile(o *manifest.Object) (*Definition, error) {
	if err := o.CheckNodes(); err != nil {
		return nil, err
	}
	js, problem := fieldcheck.JSON(o)
	if problem != nil {
		return &Definition{Object: o, Problems: []Problem{{Kind: Invalid, Node: problem.Node, Msg: problem.Msg}}}, nil
	}
	key := sha256.Sum256(js)
	c.mu.Lock()
	d, ok := c.compiled[key]
	c.mu.Unlock()
	if ok {
		return d.at(o), nil
	}
	d, err := safeCompile(o, js)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.compiled[key] = d
	c.mu.Unlock()
	return d.at(o), nil
}

// at returns d as written by o: problems point into o.
func (d *Definition) at(o *manifest.Object) *Definition {
	if d.Object == o || len(d.Problems) == 0 {
		return d
	}
	e := *d
	e.Object = o
	e.Problems = nil
	for _, p := range d.Problems {
		e.Problems = append(e.Problems, Problem{Kind: p.Kind, Node: fieldcheck.At(o.Node, p.Path), Msg: p.Msg, Path: p.Path})
	}
	return &e
}

// Lookup finds the definition of o's kind: a CRD in the render (objs)
// first, since that is what gets applied, then the files.
func (c *Catalog) Lookup(render []*Definition, o *manifest.Object) *Definition {
	gk := schema.GroupKind{Group: o.Group(), Kind: o.Kind()}
	for _, d := range render {
		if d.GroupKind == gk {
			return d
		}
	}
	return c.files[gk]
}

// Scope is whether the CRD files define gk as namespaced; known is false
// when they do not define it.
func (c *Catalog) Scope(gk schema.GroupKind) (namespaced, known bool) {
	d := c.files[gk]
	if d == nil || d.Name == "" {
		return false, false
	}
	return d.Namespaced, true
}

// safeCompile is compile, with a panic of the API server's code turned
// into an error.
func safeCompile(o *manifest.Object, js []byte) (d *Definition, err error) {
	defer func() {
		if err != nil {
			err = filepos.Errorf(o.Pos(o.Node), "%v", err)
		}
	}()
	defer recovered(&err, fmt.Sprintf("%s %s", verdict.CRDKind, o.Name()))
	return compile(o, js), nil
}

func compile(o *manifest.Object, js []byte) *Definition {
	d := &Definition{Object: o, versions: map[string]*version{}}
	bad := func(path, format string, args ...any) *Definition {
		d.Problems = append(d.Problems, Problem{Kind: Invalid, Node: fieldcheck.At(o.Node, path), Msg: fmt.Sprintf(format, args...), Path: path})
		return d
	}
	if o.APIVersion() != apiextensionsv1.SchemeGroupVersion.String() {
		return bad("apiVersion", "%s %s is not served by Kubernetes 1.22 and later: write %s", o.APIVersion(), verdict.CRDKind, apiextensionsv1.SchemeGroupVersion)
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	strict, err := kjson.UnmarshalStrict(js, &v1)
	if err != nil {
		return bad("", "%s %s cannot be read: %v", o.APIVersion(), verdict.CRDKind, err)
	}
	for _, s := range strict {
		if p, ok := unknownPath(s.Error()); ok {
			return bad(p, "unknown field %q: %s %s has no such field", p, o.APIVersion(), verdict.CRDKind)
		}
	}
	d.Name = v1.Name
	d.GroupKind = schema.GroupKind{Group: v1.Spec.Group, Kind: v1.Spec.Names.Kind}
	d.Namespaced = v1.Spec.Scope == apiextensionsv1.NamespaceScoped

	// The API server validates the internal version after defaulting.
	kubescheme.Scheme().Default(&v1)
	var internal apiextensionsinternal.CustomResourceDefinition
	if err := kubescheme.Scheme().Convert(&v1, &internal, nil); err != nil {
		return bad("", "%s %s cannot be converted: %v", o.APIVersion(), verdict.CRDKind, err)
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &internal); len(errs) > 0 {
		for _, e := range sortErrors(errs) {
			bad(writtenPath(e.Field), "CustomResourceDefinition %s: %s", v1.Name, e.Error())
		}
		return d
	}
	for _, ver := range v1.Spec.Versions {
		cv, err := compileVersion(&v1, ver)
		if err != nil {
			return bad("spec.versions", "CustomResourceDefinition %s version %s: %v", v1.Name, ver.Name, err)
		}
		d.versions[ver.Name] = cv
	}
	return d
}

// compileVersion prepares a version as apiextensions-apiserver's
// customresource_handler does when it starts serving it.
func compileVersion(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*version, error) {
	out := &version{name: v.Name, served: v.Served, deprecated: v.Deprecated, preserveUnknown: crd.Spec.PreserveUnknownFields}
	if v.DeprecationWarning != nil {
		out.warning = *v.DeprecationWarning
	}
	var props *apiextensionsinternal.JSONSchemaProps
	if v.Schema != nil {
		var internal apiextensionsinternal.CustomResourceValidation
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
			return nil, err
		}
		props = internal.OpenAPIV3Schema
		s, err := structuralschema.NewStructural(props)
		if err != nil {
			return nil, err
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, err
		}
		out.structural = s
		out.cel = cel.NewValidator(s, true, celconfig.PerCallLimit)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	out.validator = validator
	if sub := v.Subresources; sub != nil {
		out.status = sub.Status != nil
		if sub.Scale != nil {
			out.scale = &apiextensionsinternal.CustomResourceSubresourceScale{}
			if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sub.Scale, out.scale, nil); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// served lists the versions a request can name.
func (d *Definition) served() []string {
	var out []string
	for name, v := range d.versions {
		if v.served {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(a, b) })
	return out
}

func unknownPath(msg string) (string, bool) {
	p, ok := strings.CutPrefix(msg, `unknown field "`)
	if !ok {
		return "", false
	}
	p, ok = strings.CutSuffix(p, `"`)
	return p, ok
}

// hoisted are the internal version's fields that conversion lifts out of
// spec.versions when every version has the same value: errors name them.
var hoisted = []string{"spec.validation", "spec.subresources", "spec.additionalPrinterColumns"}

// writtenPath maps a field path of the internal CRD type to where a v1
// manifest writes it (the first version, the one the value was lifted from).
func writtenPath(p string) string {
	for _, h := range hoisted {
		if rest, ok := strings.CutPrefix(p, h); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			name := strings.TrimPrefix(h, "spec.")
			if name == "validation" {
				name = "schema"
			}
			return "spec.versions[0]." + name + rest
		}
	}
	return p
}

package crd

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// Create is what the API server says of creating o, a custom resource, as
// `kubectl apply` creates it (strict field validation): the CRD files'
// definition of its kind judges it as check does (Validate), in the API
// server's words. Nothing is refused where no CRD file defines the kind,
// and a deprecated version is a warning, not a refusal.
func (c *Catalog) Create(o *manifest.Object, namespace string) ([]verdict.Problem, error) {
	d := c.files[schema.GroupKind{Group: o.Group(), Kind: o.Kind()}]
	if d == nil {
		return nil, nil
	}
	ps, err := c.Validate(d, o, namespace)
	if err != nil {
		return nil, err
	}
	gv, _ := schema.ParseGroupVersion(o.APIVersion())
	prefix := ""
	if ver := d.versions[gv.Version]; ver != nil {
		prefix = d.what(o, ver) + ": "
	}
	var out []verdict.Problem
	var unknown []string
	for _, p := range ps {
		switch p.Kind {
		case Deprecated:
		case UnknownField:
			unknown = append(unknown, fmt.Sprintf("unknown field %q", p.Path))
		default:
			p.Msg = strings.TrimPrefix(strings.TrimPrefix(p.Msg, prefix), p.Path+": ")
			out = append(out, p)
		}
	}
	if len(unknown) > 0 { // the decoder refuses the body: nothing is validated
		return []verdict.Problem{{Kind: UnknownField, Msg: fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s",
			o.Kind(), gv.Version, o.Kind(), strings.Join(unknown, ", "))}}, nil
	}
	return out, nil
}

// Update is what the API server says of new, a custom resource, applied
// over old, the same one as stored: the CRD found for its kind (in the
// CRD files), each side decoded and defaulted as a create stores it, then
// customResourceStrategy.ValidateUpdate: the schema, the embedded objects,
// the list types and the x-kubernetes-validations rules with oldSelf (the
// transition rules). Nothing is refused where no CRD defines the kind.
//
// base holds the CRDs old was created under (nil: c's): old is stored as
// base's definition stores a create, then read back as c's reads it from
// storage (pruned and defaulted by the version c serves), which is what
// the API server holds once c's CRD is applied before the resource.
func (c *Catalog) Update(base verdict.CRDs, old, new *manifest.Object, namespace string) (verdict.Update, error) {
	gk := schema.GroupKind{Group: new.Group(), Kind: new.Kind()}
	d := c.files[gk]
	if d == nil || len(d.Problems) > 0 {
		return verdict.Update{}, nil
	}
	from := d
	if b, ok := base.(*Catalog); ok && b != nil {
		if bd := b.files[gk]; bd != nil && len(bd.Problems) == 0 {
			from = bd
		}
	}
	return d.update(from, old, new, namespace)
}

func (d *Definition) update(from *Definition, old, new *manifest.Object, namespace string) (_ verdict.Update, err error) {
	defer recovered(&err, fmt.Sprintf("%s %s %q", new.APIVersion(), new.Kind(), new.Name()))
	stored, err := from.stored(old, namespace)
	if err != nil || stored == nil {
		return verdict.Update{}, err
	}
	if from != d {
		if stored, err = d.read(stored); err != nil || stored == nil {
			return verdict.Update{}, err
		}
	}
	applied, err := d.stored(new, namespace)
	if err != nil || applied == nil {
		return verdict.Update{}, err
	}
	var u verdict.Update
	for _, e := range sortErrors(validateUpdate(applied.u, stored.u, applied.ver, d.Namespaced)) {
		u.Refused = append(u.Refused, verdict.Problem{Kind: verdict.Invalid, Node: locate(new, e.Field), Path: e.Field, Msg: e.ErrorBody()})
	}
	return u, nil
}

// read is s, stored under another definition of the kind, as d's decoder
// reads it from storage: pruned and defaulted by d's version of the same
// name; nil where d does not serve that version (a conversion d's CRD
// would have to make).
func (d *Definition) read(s *decoded) (*decoded, error) {
	ver := d.versions[s.ver.name]
	if ver == nil || !ver.served {
		return nil, nil
	}
	if _, err := decode(s.u, ver); err != nil {
		return nil, err
	}
	structuraldefaulting.Default(s.u, ver.structural)
	return &decoded{s.u, ver}, nil
}

// decoded is a custom resource as a create stores it, and its version.
type decoded struct {
	u   map[string]any
	ver *version
}

// stored is o decoded, pruned, defaulted and prepared as the API server
// stores a create; nil where its version is not served (Validate says so).
func (d *Definition) stored(o *manifest.Object, namespace string) (*decoded, error) {
	if err := o.CheckNodes(); err != nil {
		return nil, err
	}
	gv, _ := schema.ParseGroupVersion(o.APIVersion())
	ver := d.versions[gv.Version]
	if ver == nil || !ver.served {
		return nil, nil
	}
	u, p, err := object(o, d.viaJSON)
	if p != nil {
		return nil, fmt.Errorf("%s: %s", o.Pos(p.Node), p.Msg)
	}
	if err != nil {
		return nil, err
	}
	if _, err := decode(u, ver); err != nil {
		return nil, fmt.Errorf("%s: %v", o.Pos(o.Node), err)
	}
	structuraldefaulting.Default(u, ver.structural)
	prepareForCreate(u, ver, d.Namespaced, namespace)
	return &decoded{u, ver}, nil
}

// validateUpdate is customResourceStrategy.ValidateUpdate (with the
// validator's ValidateUpdate), ratcheting as the API server does by
// default (CRDValidationRatcheting): a value old already had that the
// schema now refuses does not refuse the update.
func validateUpdate(u, old map[string]any, ver *version, namespaced bool) field.ErrorList {
	obj, oldObj := &unstructured.Unstructured{Object: u}, &unstructured.Unstructured{Object: old}
	for _, o := range []*unstructured.Unstructured{obj, oldObj} { // as stored, and as the update names it
		o.SetResourceVersion("1")
		o.SetUID("00000000-0000-0000-0000-000000000001")
	}
	errs := metavalidation.ValidateObjectMetaAccessor(obj, namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, metavalidation.ValidateObjectMetaAccessorUpdate(obj, oldObj, field.NewPath("metadata"))...)
	correlated := common.NewCorrelatedObject(u, old, &model.Structural{Structural: ver.structural})
	errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u, old, ver.validator, apiservervalidation.WithRatcheting(correlated))...)
	errs = append(errs, validateScaleSpec(u, ver)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u, ver.structural, false)...)
	if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, ver.structural, old); len(oldErrs) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ver.structural, u)...)
	}
	if ver.cel != nil && !blocking(errs) {
		celErrs, _ := ver.cel.Validate(context.Background(), nil, ver.structural, u, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
		errs = append(errs, celErrs...)
	}
	return errs
}

package crd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	kjson "sigs.k8s.io/json"

	"github.com/krender/krender/internal/suggest"
	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// ProblemKind and Problem are verdict's: check reads them without linking
// this package.
type (
	ProblemKind = verdict.Kind
	Problem     = verdict.Problem
)

const (
	Invalid      = verdict.Invalid
	UnknownField = verdict.UnknownField
	Deprecated   = verdict.Deprecated
)

// Validate checks o, a custom resource of d's kind, as the API server
// checks a create request for it: decoding (pruning unknown fields,
// coercing metadata), defaulting, then schema, embedded-object, list-type
// and CEL validation. namespace is where o goes when it names none. o is
// not changed: defaults are applied to a copy, never to the output.
func (d *Definition) Validate(o *manifest.Object, namespace string) (_ []Problem, err error) {
	if err := o.CheckNodes(); err != nil {
		return nil, err
	}
	defer recovered(&err, fmt.Sprintf("%s %s %q", o.APIVersion(), o.Kind(), o.Name()))
	var out []Problem
	add := func(kind ProblemKind, path, msg string) {
		out = append(out, Problem{Kind: kind, Node: locate(o, path), Msg: msg, Path: path})
	}
	if len(d.Problems) > 0 {
		add(Invalid, "kind", fmt.Sprintf("%s %s is not served: its CustomResourceDefinition %s is invalid (%s)", o.APIVersion(), o.Kind(), d.Name, d.Object.Pos(d.Problems[0].Node)))
		return out, nil
	}
	gv, _ := schema.ParseGroupVersion(o.APIVersion())
	ver := d.versions[gv.Version]
	if ver == nil || !ver.served {
		add(Invalid, "apiVersion", fmt.Sprintf("%s %s is not served: CustomResourceDefinition %s serves %s", o.APIVersion(), o.Kind(), d.Name, strings.Join(d.served(), ", ")))
		return out, nil
	}
	what := d.what(o, ver)
	if ver.deprecated {
		add(Deprecated, "apiVersion", fmt.Sprintf("the API server warns: %s", d.deprecation(ver)))
	}
	u, p, err := object(o, d.viaJSON)
	if p != nil {
		return append(out, Problem{Kind: Invalid, Node: p.Node, Msg: p.Msg}), nil
	}
	if err != nil {
		add(Invalid, "", fmt.Sprintf("%s: %v", what, err))
		return out, nil
	}
	unknown, err := decode(u, ver)
	if err != nil {
		at := "metadata" // an object's own metadata that does not decode
		var fe *field.Error
		if errors.As(err, &fe) && fe.Field != "" {
			at = fe.Field // an embedded resource's apiVersion, kind or metadata
		}
		add(Invalid, at, fmt.Sprintf("%s: %v", what, err))
		return out, nil
	}
	slices.Sort(unknown) // pruning walks maps
	for _, path := range unknown {
		add(UnknownField, path, fmt.Sprintf("unknown field %q: %s has no such field%s", path, what, fieldHint(ver.structural, path)))
	}
	structuraldefaulting.Default(u, ver.structural)
	prepareForCreate(u, ver, d.Namespaced, namespace)
	for _, e := range sortErrors(validate(u, ver, d.Namespaced)) {
		add(Invalid, e.Field, fmt.Sprintf("%s: %s", what, e.Error()))
	}
	return out, nil
}

// what names o's kind and d's version of it, as check's messages begin.
func (d *Definition) what(o *manifest.Object, ver *version) string {
	return fmt.Sprintf("%s %s (CustomResourceDefinition %s, version %s)", o.APIVersion(), o.Kind(), d.Name, ver.name)
}

// locate is the node a problem at path is about: the key of the field, or
// for apiVersion and kind their value, which is what to change.
func locate(o *manifest.Object, path string) *yaml.Node {
	if path == "apiVersion" || path == "kind" {
		return manifest.Value(o.Node, path)
	}
	return fieldcheck.At(o.Node, path)
}

// object is o as the API server's decoder has it before coercion: read
// from the node tree when fieldcheck.Value is sure of it, else through the
// JSON kubectl sends.
func object(o *manifest.Object, viaJSON bool) (map[string]any, *fieldcheck.Problem, error) {
	if v, ok := fieldcheck.Value(o.Node); ok && !viaJSON {
		if u, isMap := v.(map[string]any); isMap {
			return u, nil, nil
		}
	}
	js, p := fieldcheck.JSON(o)
	if p != nil {
		return nil, p, nil
	}
	var u map[string]any
	err := kjson.UnmarshalCaseSensitivePreserveInts(js, &u)
	return u, nil, err
}

// deprecation is the warning the API server gives for a deprecated version:
// the CRD's own, else the default one.
func (d *Definition) deprecation(ver *version) string {
	if ver.warning != "" {
		return ver.warning
	}
	return fmt.Sprintf("%s/%s %s is deprecated", d.GroupKind.Group, ver.name, d.GroupKind.Kind)
}

// fieldHint is a did-you-mean among the fields the schema allows beside the
// unknown one at path (metadata's are ObjectMeta's), or "".
func fieldHint(s *structuralschema.Structural, path string) string {
	steps := fieldcheck.Steps(path)
	last := steps[len(steps)-1]
	if last.Index {
		return ""
	}
	if len(steps) > 1 && steps[0].Name == "metadata" && !steps[0].Key {
		return suggest.Hint(last.Name, fieldcheck.GoFieldNames(reflect.TypeOf(metav1.ObjectMeta{}), steps[1:len(steps)-1]))
	}
	for _, st := range steps[:len(steps)-1] {
		var next *structuralschema.Structural
		switch {
		case s == nil:
		case st.Index:
			next = s.Items
		case st.Key:
			if s.AdditionalProperties != nil {
				next = s.AdditionalProperties.Structural
			}
		default:
			if p, ok := s.Properties[st.Name]; ok {
				next = &p
			} else if s.AdditionalProperties != nil {
				next = s.AdditionalProperties.Structural
			}
		}
		if next == nil {
			return ""
		}
		s = next
	}
	if s == nil {
		return ""
	}
	names := slices.Collect(maps.Keys(s.Properties))
	if len(steps) == 1 {
		names = append(names, "apiVersion", "kind", "metadata")
	}
	return suggest.Hint(last.Name, names)
}

// sortErrors orders errors by field path, then text: the schema validator
// walks Go maps, so the API server's own order differs from run to run.
func sortErrors(errs field.ErrorList) field.ErrorList {
	type keyed struct {
		field, text string
		err         *field.Error
	}
	ks := make([]keyed, len(errs))
	for i, e := range errs {
		ks[i] = keyed{e.Field, e.Error(), e}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return cmp.Or(strings.Compare(a.field, b.field), strings.Compare(a.text, b.text))
	})
	out := make(field.ErrorList, len(ks))
	for i, k := range ks {
		out[i] = k.err
	}
	return out
}

// recovered turns a panic in the API server's code, which krender runs on
// input that no request would bring this far, into an error: one object
// goes unchecked and is reported (as a krender bug), instead of the whole
// run dying with a stack trace.
func recovered(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: the API server's validation code panicked: %v", what, r)
	}
}

// decode is what the API server's decoder for the resource does
// (unstructuredSchemaCoercer.apply): it returns the fields it prunes.
func decode(u map[string]any, ver *version) ([]string, error) {
	kind, apiVersion := u["kind"], u["apiVersion"]
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	if !ver.preserveUnknown {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u, ver.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, ver.structural)
	}
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u, ver.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		if first := firstCoerceError(nil, u, ver.structural); first != nil {
			return nil, first
		}
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	u["kind"], u["apiVersion"] = kind, apiVersion
	if found {
		if err := schemaobjectmeta.SetObjectMeta(u, meta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// firstCoerceError is the error the decoder's coercion stops at, found in
// sorted key order. The coercion walks Go maps and stops at the first
// embedded resource whose apiVersion, kind or metadata does not decode, so
// of two such errors the API server names either, from run to run; krender
// names the first in key order. nil: none found (the caller then keeps the
// coercion's own error).
func firstCoerceError(pth *field.Path, x any, s *structuralschema.Structural) *field.Error {
	if s == nil {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			v := x[k]
			if s.XEmbeddedResource {
				if err := embeddedFieldError(pth, x, k, v); err != nil {
					return err
				}
			}
			if prop, ok := s.Properties[k]; ok {
				if err := firstCoerceError(pth.Child(k), v, &prop); err != nil {
					return err
				}
			} else if s.AdditionalProperties != nil {
				if err := firstCoerceError(pth.Key(k), v, s.AdditionalProperties.Structural); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, v := range x {
			if err := firstCoerceError(pth.Index(i), v, s.Items); err != nil {
				return err
			}
		}
	}
	return nil
}

// embeddedFieldError is the coercion's error for the field k (value v) of
// the embedded resource x at pth: apiVersion and kind must be strings, and
// metadata must decode as ObjectMeta.
func embeddedFieldError(pth *field.Path, x map[string]any, k string, v any) *field.Error {
	switch k {
	case "apiVersion", "kind":
		if _, ok := v.(string); !ok {
			return field.Invalid(pth.Child(k), v, "must be a string")
		}
	case "metadata":
		_, _, _, err := schemaobjectmeta.GetObjectMetaWithOptions(x, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true, ParentPath: pth})
		if err != nil {
			return field.Invalid(pth.Child("metadata"), v, err.Error())
		}
	}
	return nil
}

// prepareForCreate does what the request path does before validation: a
// status subresource's status is dropped, the namespace comes from the
// request (cleared for cluster-scoped kinds), and generateName is expanded.
func prepareForCreate(u map[string]any, ver *version, namespaced bool, namespace string) {
	if ver.status {
		delete(u, "status")
	}
	obj := &unstructured.Unstructured{Object: u}
	switch {
	case !namespaced:
		obj.SetNamespace("")
	case obj.GetNamespace() == "":
		obj.SetNamespace(namespace)
	}
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj.SetName(obj.GetGenerateName() + "x0000")
	}
}

// validate is customResourceStrategy.Validate for a create.
func validate(u map[string]any, ver *version, namespaced bool) field.ErrorList {
	obj := &unstructured.Unstructured{Object: u}
	errs := metavalidation.ValidateObjectMetaAccessor(obj, namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, ver.validator)...)
	errs = append(errs, validateScaleSpec(u, ver)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u, ver.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ver.structural, u)...)
	if ver.cel != nil && !blocking(errs) {
		celErrs, _ := ver.cel.Validate(context.Background(), nil, ver.structural, u, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}

// validateScaleSpec checks the replicas field the scale subresource reads
// (the status side is empty on create).
func validateScaleSpec(u map[string]any, ver *version) field.ErrorList {
	if ver.scale == nil {
		return nil
	}
	path := strings.TrimPrefix(ver.scale.SpecReplicasPath, ".")
	n, _, err := unstructured.NestedInt64(u, strings.Split(path, ".")...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(ver.scale.SpecReplicasPath), n, err.Error())}
	case n < 0:
		return field.ErrorList{field.Invalid(field.NewPath(ver.scale.SpecReplicasPath), n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(ver.scale.SpecReplicasPath), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// blocking mirrors the API server: CEL rules are not run on an object
// whose shape is already wrong.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

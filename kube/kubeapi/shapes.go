package kubeapi

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Shape is what the k8s.io/api types say about one node of a built-in
// object, as a strategic merge patch reads them: the Go type at that point
// (a struct, or something without fields) and, for a list, the key its items
// merge on (the patchMergeKey tag where the patch strategy is "merge", ""
// for lists a patch replaces). The tables behind it are generated from
// k8s.io/api and strategicpatch (shapes_test.go) and held to them.
type Shape struct {
	t   int32 // noType, opaque, or firstStruct + an index into structs
	key string
}

// The values of Shape.t and of the references in the tables.
const (
	noType      = 0 // the lookup fails
	opaque      = 1 // a type without fields: a scalar, a map or a slice
	firstStruct = 2
)

// field is one JSON field of a struct: what a mapping value (obj) and a
// list (list, with its merge key) under that name are.
type field struct {
	name string
	obj  int32 // the field's struct, or noType
	list int32 // the list's item type, or noType where the field is no list
	key  string
}

// rootKind names the Go type of one kind.
type rootKind struct {
	apiVersion, kind string
	t                int32
}

// KindShape is the shape of a whole object of a kind whose fields krender
// checks (the group versions of the fieldcheck package); ok is false for
// any other kind, custom resources included.
func KindShape(apiVersion, kind string) (Shape, bool) {
	t, ok := findRoot(rootKinds[:], apiVersion, kind)
	return Shape{t: t}, ok
}

// findRoot is the type of apiVersion and kind in roots, sorted by both;
// apiVersion is read as the API server reads it ("/v1" is "v1").
func findRoot(roots []rootKind, apiVersion, kind string) (int32, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return 0, false
	}
	i, ok := slices.BinarySearchFunc(roots, rootKind{apiVersion: gv.String(), kind: kind}, func(a, b rootKind) int {
		return cmp.Or(strings.Compare(a.apiVersion, b.apiVersion), strings.Compare(a.kind, b.kind))
	})
	if !ok {
		return 0, false
	}
	return roots[i].t, true
}

// ContainerShape is the shape of a core/v1 Container, which custom
// resources that embed containers (Argo Rollouts) use too.
func ContainerShape() Shape { return Shape{t: containerType} }

// Field is the shape of the value of key name in a mapping of shape s, as
// a mapping (list false) or as a list (list true). ok is false where the
// type has no such field, where a mapping's field is no struct, and where
// a list's field is no list. Names match exactly, else regardless of case,
// as Go's JSON decoding does.
func (s Shape) Field(name string, list bool) (Shape, bool) {
	if s.t < firstStruct {
		return Shape{}, false
	}
	fs := structs[s.t-firstStruct]
	i := slices.IndexFunc(fs, func(f field) bool { return f.name == name })
	if i < 0 {
		i = slices.IndexFunc(fs, func(f field) bool { return strings.EqualFold(f.name, name) })
	}
	switch {
	case i < 0:
		return Shape{}, false
	case !list && fs[i].obj != noType:
		return Shape{t: fs[i].obj}, true
	case list && fs[i].list != noType:
		return Shape{t: fs[i].list, key: fs[i].key}, true
	}
	return Shape{}, false
}

// Item is the shape of an item of a list of shape s.
func (s Shape) Item() Shape { return Shape{t: s.t} }

// MergeKey is the key the items of a list of shape s merge on; "" where a
// strategic merge patch replaces the list.
func (s Shape) MergeKey() string { return s.key }

package kubeapi

import (
	"slices"
	"strings"
)

// Type is a Go type of the k8s.io/api kinds as strict JSON decoding sees
// it: what a walker needs to tell, without reflect and without linking
// k8s.io/api, whether a YAML tree decodes into it cleanly. The tables
// behind it (zz_types.go) are generated from the library with reflect
// (types_test.go) and held to it. The zero Type is InvalidType.
type Type struct{ t int32 }

// TypeKind is what a Type is for decoding. The types that decode
// themselves are kinds of their own: the few a walker models by name
// (QuantityType to FieldsV1Type) and OwnDecoderType for the others.
type TypeKind uint8

// The kinds of Type.
const (
	InvalidType      TypeKind = iota // no type: a field name two embedded structs claim
	PointerType                      // Elem is the pointee
	StructType                       // fields by JSON name
	OpaqueStructType                 // a struct whose fields a walker does not model (a ",string" option, a non-struct embed)
	MapType                          // Elem is the value; TextKeys says whether keys decode as plain strings
	SliceType                        // Elem is the item
	BytesType                        // []byte: standard base64 in JSON
	AnyType                          // an empty interface
	StringType
	BoolType
	IntType   // Bits wide
	UintType  // Bits wide
	FloatType // Bits wide
	QuantityType
	IntOrStringType
	TimeType
	MicroTimeType
	RawExtensionType
	FieldsV1Type
	OwnDecoderType  // implements json.Unmarshaler or encoding.TextUnmarshaler on T or *T
	UnsupportedType // an interface with methods, an array, a channel, a function, a complex number
)

// typeInfo is one row of the type table.
type typeInfo struct {
	kind     TypeKind
	bits     uint8
	textKeys bool
	elem     int32 // a pointer's, map's or slice's element, an index into types
	first, n int32 // a struct's fields: typeFields[first : first+n], sorted by name
}

// typeField is one JSON field of a struct; t is 0 (InvalidType) where the
// name is ambiguous.
type typeField struct {
	name string
	t    int32
}

// KindType is the Go type of a kind krender checks the fields of (the
// group versions of the fieldcheck package); ok is false for any other
// kind, custom resources included. apiVersion is read as KindShape reads it.
func KindType(apiVersion, kind string) (Type, bool) {
	t, ok := findRoot(typeKinds[:], apiVersion, kind)
	return Type{t}, ok
}

// PodTemplateSpecType is core/v1 PodTemplateSpec, the pod template of
// custom workloads too.
func PodTemplateSpecType() Type { return Type{podTemplateSpecType} }

// Kind is what t is.
func (t Type) Kind() TypeKind { return types[t.t].kind }

// Bits is the size of a number type.
func (t Type) Bits() int { return int(types[t.t].bits) }

// Elem is the element of a pointer, map or slice type.
func (t Type) Elem() Type { return Type{types[t.t].elem} }

// TextKeys reports whether a map type's keys are strings that decode as
// they are (no decoder of their own).
func (t Type) TextKeys() bool { return types[t.t].textKeys }

// Field is the type of the field of struct t that JSON name (exactly)
// decodes into; ok is false where no field or two have that name.
func (t Type) Field(name string) (Type, bool) {
	ti := types[t.t]
	fs := typeFields[ti.first : ti.first+ti.n]
	i, ok := slices.BinarySearchFunc(fs, name, func(f typeField, name string) int { return strings.Compare(f.name, name) })
	if !ok || fs[i].t == 0 {
		return Type{}, false
	}
	return Type{fs[i].t}, true
}

// NumField is the number of JSON names of struct t.
func (t Type) NumField() int { return int(types[t.t].n) }

// FieldAt is the i-th JSON name of struct t, by name, and its type
// (InvalidType where the name is ambiguous).
func (t Type) FieldAt(i int) (string, Type) {
	f := typeFields[types[t.t].first+int32(i)]
	return f.name, Type{f.t}
}

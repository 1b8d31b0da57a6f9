package kubeapi_test

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/krender/krender/kube/kubeapi"
)

// The types strict decoding treats apart, each a TypeKind of its own.
var specialTypes = map[reflect.Type]kubeapi.TypeKind{
	reflect.TypeFor[resource.Quantity]():    kubeapi.QuantityType,
	reflect.TypeFor[intstr.IntOrString]():   kubeapi.IntOrStringType,
	reflect.TypeFor[metav1.Time]():          kubeapi.TimeType,
	reflect.TypeFor[metav1.MicroTime]():     kubeapi.MicroTimeType,
	reflect.TypeFor[runtime.RawExtension](): kubeapi.RawExtensionType,
	reflect.TypeFor[metav1.FieldsV1]():      kubeapi.FieldsV1Type,
}

var (
	jsonDecoder     = reflect.TypeFor[json.Unmarshaler]()
	textDecoder     = reflect.TypeFor[encoding.TextUnmarshaler]()
	podTemplateSpec = reflect.TypeFor[corev1.PodTemplateSpec]()
)

// decodesItself: t has its own JSON or text decoding.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonDecoder) || p.Implements(textDecoder) || t.Implements(jsonDecoder) || t.Implements(textDecoder)
}

// libField is one JSON name of a struct and the Go type it decodes into;
// nil where two fields claim the name.
type libField struct {
	name string
	typ  reflect.Type
}

// fieldsOf are the JSON names of struct t's fields (embedded structs
// flattened as encoding/json does), sorted; ok is false when t has a field
// strict decoding treats in a way the table does not model (a ",string"
// option, an embedded non-struct, embedding too deep).
func fieldsOf(t reflect.Type) ([]libField, bool) {
	m := map[string]reflect.Type{}
	if !collectFields(t, m, 0) {
		return nil, false
	}
	out := make([]libField, 0, len(m))
	for name, typ := range m {
		out = append(out, libField{name, typ})
	}
	slices.SortFunc(out, func(a, b libField) int { return strings.Compare(a.name, b.name) })
	return out, true
}

func collectFields(t reflect.Type, m map[string]reflect.Type, depth int) bool {
	if depth > 5 {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") {
			return false
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct || !collectFields(et, m, depth+1) {
				return false
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, dup := m[name]; dup {
			m[name] = nil
			continue
		}
		m[name] = sf.Type
	}
	return true
}

// kindOf is what the table says t is.
func kindOf(t reflect.Type) kubeapi.TypeKind {
	if k, ok := specialTypes[t]; ok {
		return k
	}
	if t.Kind() == reflect.Pointer {
		return kubeapi.PointerType
	}
	if decodesItself(t) {
		return kubeapi.OwnDecoderType
	}
	switch t.Kind() {
	case reflect.Struct:
		if _, ok := fieldsOf(t); !ok {
			return kubeapi.OpaqueStructType
		}
		return kubeapi.StructType
	case reflect.Map:
		return kubeapi.MapType
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return kubeapi.BytesType
		}
		return kubeapi.SliceType
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return kubeapi.AnyType
		}
	case reflect.String:
		return kubeapi.StringType
	case reflect.Bool:
		return kubeapi.BoolType
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kubeapi.IntType
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kubeapi.UintType
	case reflect.Float32, reflect.Float64:
		return kubeapi.FloatType
	}
	return kubeapi.UnsupportedType
}

// bitsOf is a number type's size, 0 for the rest.
func bitsOf(t reflect.Type, k kubeapi.TypeKind) int {
	switch k {
	case kubeapi.IntType, kubeapi.UintType, kubeapi.FloatType:
		return t.Bits()
	}
	return 0
}

// textKeys: a map whose keys are strings that decode as they are.
func textKeys(t reflect.Type) bool {
	return t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && !decodesItself(t.Key())
}

// elemOf is the element the table follows: a pointer's, a map's value, a
// slice's item.
func elemOf(t reflect.Type, k kubeapi.TypeKind) reflect.Type {
	switch k {
	case kubeapi.PointerType, kubeapi.MapType, kubeapi.SliceType:
		return t.Elem()
	}
	return nil
}

// typeRow is one row of the generated type table.
type typeRow struct {
	kind     kubeapi.TypeKind
	bits     int
	textKeys bool
	elem     int
	fields   []genTypeField
	name     string // for the comment
}

type genTypeField struct {
	name string
	t    int
}

// typeGen numbers the Go types reachable from the roots. Structs are
// rows of their own; other types with the same row are one row.
type typeGen struct {
	ids     map[reflect.Type]int
	rowIDs  map[string]int // a non-struct row, printed, to its id
	rows    []typeRow
	structs []reflect.Type // whose fields are still to read
}

func (g *typeGen) id(t reflect.Type) int {
	if id, ok := g.ids[t]; ok {
		return id
	}
	k := kindOf(t)
	row := typeRow{kind: k, bits: bitsOf(t, k), textKeys: textKeys(t)}
	if k == kubeapi.StructType {
		row.name = t.PkgPath() + "." + t.Name()
		g.rows = append(g.rows, row)
		g.ids[t] = len(g.rows) - 1
		g.structs = append(g.structs, t)
		return g.ids[t]
	}
	if e := elemOf(t, k); e != nil {
		row.elem = g.id(e)
	}
	key := fmt.Sprintf("%d %d %v %d", row.kind, row.bits, row.textKeys, row.elem)
	id, ok := g.rowIDs[key]
	if !ok {
		row.name = kindNames[k]
		if row.elem != 0 {
			row.name += " of " + g.rows[row.elem].name
		}
		g.rows = append(g.rows, row)
		id = len(g.rows) - 1
		g.rowIDs[key] = id
	}
	g.ids[t] = id
	return id
}

// readStructs fills in the fields of the structs numbered so far, and of
// those their fields number.
func (g *typeGen) readStructs() {
	for len(g.structs) > 0 {
		t := g.structs[0]
		g.structs = g.structs[1:]
		fs, _ := fieldsOf(t)
		var row []genTypeField
		for _, f := range fs {
			id := 0
			if f.typ != nil {
				id = g.id(f.typ)
			}
			row = append(row, genTypeField{f.name, id})
		}
		g.rows[g.ids[t]].fields = row
	}
}

var kindNames = map[kubeapi.TypeKind]string{
	kubeapi.InvalidType: "InvalidType", kubeapi.PointerType: "PointerType", kubeapi.StructType: "StructType",
	kubeapi.OpaqueStructType: "OpaqueStructType", kubeapi.MapType: "MapType", kubeapi.SliceType: "SliceType",
	kubeapi.BytesType: "BytesType", kubeapi.AnyType: "AnyType", kubeapi.StringType: "StringType",
	kubeapi.BoolType: "BoolType", kubeapi.IntType: "IntType", kubeapi.UintType: "UintType",
	kubeapi.FloatType: "FloatType", kubeapi.QuantityType: "QuantityType", kubeapi.IntOrStringType: "IntOrStringType",
	kubeapi.TimeType: "TimeType", kubeapi.MicroTimeType: "MicroTimeType", kubeapi.RawExtensionType: "RawExtensionType",
	kubeapi.FieldsV1Type: "FieldsV1Type", kubeapi.OwnDecoderType: "OwnDecoderType", kubeapi.UnsupportedType: "UnsupportedType",
}

// generateTypes writes zz_types.go from the library.
func generateTypes(t *testing.T) []byte {
	roots := shapeRoots(t)
	g := &typeGen{ids: map[reflect.Type]int{}, rowIDs: map[string]int{}, rows: []typeRow{{name: "no type"}}}
	pod := g.id(podTemplateSpec)
	for _, r := range roots {
		g.id(r.typ)
	}
	g.readStructs()
	var b bytes.Buffer
	b.WriteString("// Code generated by go test ./kube/kubeapi -run TestTypesMatchLibrary -update; DO NOT EDIT.\n\n")
	b.WriteString("package kubeapi\n\n")
	fmt.Fprintf(&b, "const podTemplateSpecType = %d\n\n", pod)
	b.WriteString("// typeKinds are the kinds KindType knows, sorted by apiVersion and kind.\n")
	b.WriteString("var typeKinds = [...]rootKind{\n")
	for _, r := range roots {
		fmt.Fprintf(&b, "\t{%q, %q, %d},\n", r.apiVersion, r.kind, g.ids[r.typ])
	}
	b.WriteString("}\n\n")
	b.WriteString("// types[t] is Type{t}: kind, bits, textKeys, elem, and a struct's fields\n// as typeFields[first : first+n].\n")
	b.WriteString("var types = [...]typeInfo{\n")
	first := 0
	for i, r := range g.rows {
		at := 0
		if len(r.fields) > 0 {
			at = first
		}
		fmt.Fprintf(&b, "\t%d: {%s, %d, %v, %d, %d, %d}, // %s\n", i, kindNames[r.kind], r.bits, r.textKeys, r.elem, at, len(r.fields), r.name)
		first += len(r.fields)
	}
	b.WriteString("}\n\n")
	b.WriteString("// typeFields are the JSON fields of the struct types, each struct's sorted by name.\n")
	b.WriteString("var typeFields = [...]typeField{\n")
	for i, r := range g.rows {
		if len(r.fields) > 0 {
			fmt.Fprintf(&b, "\t// %d: %s\n", i, r.name)
		}
		for _, f := range r.fields {
			fmt.Fprintf(&b, "\t{%q, %d},\n", f.name, f.t)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// TestTypesMatchLibrary holds zz_types.go to k8s.io/api; -update
// regenerates it.
func TestTypesMatchLibrary(t *testing.T) {
	checkGenerated(t, "zz_types.go", generateTypes(t), "TestTypesMatchLibrary")
}

type typePair = pair[kubeapi.Type]

// TestTypesBehaveAsReflect walks every kind's type, and PodTemplateSpec,
// with Type and with reflect side by side, each Go type once, and
// compares what the two say: the kind, a number's bits, a map's keys, the
// element, and of a struct every JSON name (its type, and a lookup by it,
// in upper case and of a name the type lacks).
func TestTypesBehaveAsReflect(t *testing.T) {
	if *update {
		t.Skip("regenerating")
	}
	kinds := map[kubeapi.TypeKind]bool{}
	seen := walkTypes(t, typePair{kubeapi.PodTemplateSpecType(), podTemplateSpec}, kubeapi.KindType, func(p typePair) []typePair {
		kinds[p.ours.Kind()] = true
		return compareType(t, p.ours, p.lib)
	})
	if len(seen) < 500 {
		t.Errorf("only %d types walked", len(seen))
	}
	for _, k := range []kubeapi.TypeKind{kubeapi.PointerType, kubeapi.StructType, kubeapi.MapType, kubeapi.SliceType,
		kubeapi.BytesType, kubeapi.StringType, kubeapi.BoolType, kubeapi.IntType,
		kubeapi.QuantityType, kubeapi.IntOrStringType, kubeapi.TimeType, kubeapi.MicroTimeType,
		kubeapi.RawExtensionType, kubeapi.FieldsV1Type} {
		if !kinds[k] {
			t.Errorf("no type of kind %s met", kindNames[k])
		}
	}
}

// compareType compares one type and returns the types it leads to.
func compareType(t *testing.T, ours kubeapi.Type, lib reflect.Type) []typePair {
	k := kindOf(lib)
	if ours.Kind() != k {
		t.Errorf("%s: kind %s, reflect says %s", lib, kindNames[ours.Kind()], kindNames[k])
		return nil
	}
	if ours.Bits() != bitsOf(lib, k) {
		t.Errorf("%s: %d bits, reflect says %d", lib, ours.Bits(), bitsOf(lib, k))
	}
	if ours.TextKeys() != textKeys(lib) {
		t.Errorf("%s: text keys %v, reflect says %v", lib, ours.TextKeys(), textKeys(lib))
	}
	if e := elemOf(lib, k); e != nil {
		return []typePair{{ours.Elem(), e}}
	}
	if ours.Elem().Kind() != kubeapi.InvalidType {
		t.Errorf("%s: an element of kind %s, reflect has none", lib, kindNames[ours.Elem().Kind()])
	}
	var fs []libField
	if k == kubeapi.StructType {
		fs, _ = fieldsOf(lib)
	}
	if ours.NumField() != len(fs) {
		t.Errorf("%s: %d fields, reflect says %d", lib, ours.NumField(), len(fs))
		return nil
	}
	var next []typePair
	for i, f := range fs {
		name, ft := ours.FieldAt(i)
		got, ok := ours.Field(f.name)
		switch {
		case name != f.name:
			t.Errorf("%s: field %d is %q, reflect says %q", lib, i, name, f.name)
		case f.typ == nil && (ft.Kind() != kubeapi.InvalidType || ok):
			t.Errorf("%s.%s: two fields claim the name; the table has one of kind %s (lookup %v)", lib, f.name, kindNames[ft.Kind()], ok)
		case f.typ != nil && (!ok || got != ft):
			t.Errorf("%s.%s: the lookup finds %v %v, the table lists %v", lib, f.name, got, ok, ft)
		case f.typ != nil:
			next = append(next, typePair{ft, f.typ})
		}
		if _, ok := ours.Field(strings.ToUpper(f.name)); ok && strings.ToUpper(f.name) != f.name {
			t.Errorf("%s: %q found in upper case", lib, f.name)
		}
	}
	if _, ok := ours.Field("noSuchField"); ok {
		t.Errorf("%s: noSuchField found", lib)
	}
	return next
}

func TestKindType(t *testing.T) {
	for _, tc := range kindCases {
		if _, ok := kubeapi.KindType(tc.apiVersion, tc.kind); ok != tc.ok {
			t.Errorf("KindType(%q, %q) ok = %v, want %v", tc.apiVersion, tc.kind, ok, tc.ok)
		}
	}
	d, _ := kubeapi.KindType("apps/v1", "Deployment")
	spec, _ := d.Field("spec")
	spec = spec.Elem() // DeploymentSpec is no pointer: Elem is nothing
	if spec.Kind() != kubeapi.InvalidType {
		t.Errorf("Deployment .spec is a %s", kindNames[spec.Kind()])
	}
	spec, _ = d.Field("spec")
	replicas, _ := spec.Field("replicas")
	if replicas.Kind() != kubeapi.PointerType || replicas.Elem().Kind() != kubeapi.IntType || replicas.Elem().Bits() != 32 {
		t.Errorf("Deployment .spec.replicas: %s of %s %d, want a pointer to an int32",
			kindNames[replicas.Kind()], kindNames[replicas.Elem().Kind()], replicas.Elem().Bits())
	}
	tmpl, _ := spec.Field("template")
	if tmpl != kubeapi.PodTemplateSpecType() {
		t.Errorf("Deployment .spec.template is not PodTemplateSpecType")
	}
}

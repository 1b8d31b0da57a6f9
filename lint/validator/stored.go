package validator

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// storedAt reads old and new, internal objects, as the API server serves
// what it stored in gv, at one path at a time: only the fields a reason
// names are converted to JSON values, where converting both objects whole
// (runtime's ToUnstructured) took a quarter of judging an update. The
// versioned objects share memory with old and new, which are read, never
// written.
func storedAt(old, new runtime.Object, gv schema.GroupVersion) (func(path []string) (any, any, bool), error) {
	var sides [2]any
	for i, o := range []runtime.Object{old, new} {
		v, err := legacyscheme.Scheme.UnsafeConvertToVersion(o, gv)
		if err != nil {
			return nil, err
		}
		sides[i] = v
	}
	return reader(sides[0], sides[1]), nil
}

// reader reads a and b, values of one Go type, at a path as JSON names it,
// each as a JSON value; false where the path names no field of the type.
func reader(a, b any) func(path []string) (any, any, bool) {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return func(path []string) (any, any, bool) {
		x, xok := typedAt(va, path)
		y, yok := typedAt(vb, path)
		if !xok || !yok {
			return nil, nil, false
		}
		return jsonOf(x), jsonOf(y), true
	}
}

// typedAt is the value of v at path as JSON names it: keys (a struct's
// fields by their JSON names, inlined structs' included, or a map's keys),
// "[name]" for the item of a list of named structs, "[i]" for an index. An
// invalid value where the object holds nothing there (a nil pointer, a
// missing key or item, an omitted empty field); false where path names no
// field of v's type.
func typedAt(v reflect.Value, path []string) (reflect.Value, bool) {
	for _, seg := range path {
		v = deref(v)
		if !v.IsValid() {
			return v, true
		}
		var ok bool
		if item, isItem := strings.CutPrefix(seg, "["); isItem {
			v, ok = itemAt(v, strings.TrimSuffix(item, "]"))
		} else {
			v, ok = keyAt(v, seg)
		}
		if !ok {
			return reflect.Value{}, false
		}
	}
	return deref(v), true
}

// deref follows pointers and interfaces; invalid at a nil one.
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// itemAt is the item of list v named name, where every item has a name of
// its own (as a diff matches items), else at index name.
func itemAt(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() != reflect.Slice {
		return reflect.Value{}, false
	}
	if names := itemNames(v); names != nil {
		for i, n := range names {
			if n == name {
				return v.Index(i), true
			}
		}
		return reflect.Value{}, true
	}
	i, err := strconv.Atoi(name)
	if err != nil {
		return reflect.Value{}, false
	}
	if i < 0 || i >= v.Len() {
		return reflect.Value{}, true
	}
	return v.Index(i), true
}

// itemNames are the Name fields of list v's items, where each has a
// distinct one; else nil.
func itemNames(v reflect.Value) []string {
	t := v.Type().Elem()
	if t.Kind() != reflect.Struct {
		return nil
	}
	f, ok := t.FieldByName("Name")
	if !ok || f.Type.Kind() != reflect.String || v.Len() == 0 {
		return nil
	}
	names := make([]string, v.Len())
	seen := map[string]bool{}
	for i := range names {
		n := v.Index(i).FieldByIndex(f.Index).String()
		if n == "" || seen[n] {
			return nil
		}
		names[i], seen[n] = n, true
	}
	return names
}

// keyAt is the field or map entry of v that JSON names key.
func keyAt(v reflect.Value, key string) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return reflect.Value{}, false
		}
		e := v.MapIndex(reflect.ValueOf(key).Convert(v.Type().Key()))
		return e, true
	case reflect.Struct:
		f, ok := jsonFields(v.Type())[key]
		if !ok {
			return reflect.Value{}, false
		}
		fv, err := v.FieldByIndexErr(f.index)
		if err != nil || f.omitEmpty && fv.IsZero() {
			return reflect.Value{}, true // under a nil inlined pointer, or omitted
		}
		return fv, true
	}
	return reflect.Value{}, false
}

// jsonField is where a struct keeps the field JSON names so.
type jsonField struct {
	index     []int
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type → map[string]jsonField

// jsonFields are a struct type's fields by their JSON names, those of
// inlined (`json:",inline"` or embedded untagged) structs included.
func jsonFields(t reflect.Type) map[string]jsonField {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]jsonField)
	}
	m := map[string]jsonField{}
	var add func(t reflect.Type, index []int)
	add = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			at := append(append([]int(nil), index...), i)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct {
				add(ft, at)
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := m[name]; !dup {
				m[name] = jsonField{index: at, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")}
			}
		}
	}
	add(t, nil)
	fieldCache.Store(t, m)
	return m
}

// jsonOf is v as JSON reads it back (what ToUnstructured makes of it:
// integers as int64, quantities in canonical form); nil for nothing.
func jsonOf(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	js, err := json.Marshal(v.Interface())
	if err != nil {
		return nil
	}
	var out any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &out); err != nil {
		return nil
	}
	return out
}

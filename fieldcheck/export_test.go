package fieldcheck

import (
	"reflect"

	"go.yaml.in/yaml/v4"
)

// Both paths of decodeStrict, for the differential tests.
var DecodeJSON = decodeJSON

// Clean is the fast path's verdict on root decoded into a new value of obj's type.
func Clean(root *yaml.Node, obj any) bool { return clean(root, reflect.TypeOf(obj), 0) }

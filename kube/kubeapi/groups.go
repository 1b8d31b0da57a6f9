package kubeapi

import "slices"

// BuiltinGroup reports whether group is one of Kubernetes' own API groups
// ("" is the core group): one the API server serves itself and whose fields
// it and its controllers read as written. Every other group is a custom
// resource's.
func BuiltinGroup(group string) bool {
	_, found := slices.BinarySearch(builtinGroups, group)
	return found
}

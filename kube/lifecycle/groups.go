package lifecycle

import "github.com/krender/krender/kube/kubeapi"

// BuiltIn reports whether the API server serves group itself (a group of
// k8s.io/api, apiextensions.k8s.io or apiregistration.k8s.io): an object of
// any other group is a custom resource. The table is kubeapi's, generated
// from this package's data, so that commands other than check pay nothing
// for it.
func BuiltIn(group string) bool { return kubeapi.BuiltinGroup(group) }

// Package kubescheme holds the runtime.Scheme of the API server's built-in
// types. It links every k8s.io/api group and apiextensions, which costs
// start-up time in any binary that imports it: only check's side does
// (fieldcheck, crd) and tests.
package kubescheme

import (
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Scheme returns the one runtime.Scheme of the API server's built-in types: every
// k8s.io/api group version and the apiextensions group (internal version and
// conversions included, as the API server installs it). The lifecycle table
// is generated from it (lifecycle's tests), fieldcheck resolves kinds to Go
// types with it and crd defaults and converts CustomResourceDefinitions with
// it.
//
// It is built on first use rather than at init: most krender commands
// never ask, and registering every API package takes a few milliseconds.
// The scheme is only read once built, so it is safe for concurrent use.
func Scheme() *runtime.Scheme { return scheme() }

var scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range addToScheme {
		if err := add(s); err != nil {
			panic("kubescheme: " + err.Error())
		}
	}
	// What apiextensions/install.Install adds, without importing it: the
	// internal version lets crd convert a v1 definition for validation.
	if err := apiextensionsinternal.AddToScheme(s); err != nil {
		panic("kubescheme: " + err.Error())
	}
	if err := s.SetVersionPriority(apiextensionsv1.SchemeGroupVersion, apiextensionsv1beta1.SchemeGroupVersion); err != nil {
		panic("kubescheme: " + err.Error())
	}
	return s
})

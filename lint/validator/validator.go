// Package validator is verdict.Validator with the API server's own code:
// fieldcheck's strict decoding of built-in kinds and crd's validation of
// custom resources against their CRDs. Only krender-check links it: the
// CRD validation brings k8s.io/apiextensions-apiserver, with CEL, gRPC,
// OpenTelemetry and Prometheus behind it (BENCHMARKS.md, "Start-up").
package validator

import (
	"github.com/krender/krender/lint/crd"
	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
)

// APIServer validates as the API server does.
type APIServer struct{}

var _ verdict.Validator = APIServer{}

func (APIServer) Fields(o *manifest.Object) ([]verdict.Problem, error) { return fieldcheck.Check(o) }

func (APIServer) PodTemplate(o *manifest.Object, path []string) ([]verdict.Problem, error) {
	return fieldcheck.CheckPodTemplate(o, path)
}

func (APIServer) CRDs(files []*manifest.Object) (verdict.CRDs, error) {
	c, err := crd.NewCatalog(files)
	if err != nil {
		return nil, err
	}
	return c, nil
}

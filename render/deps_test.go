package render

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// engine are the packages `krender render`, `vars`, `schema` and `version`
// run on, and action, which holds every command's action: `check`'s and
// `fn`'s bring the linter (lint/check), which `krender` links
// for its own check, but never the API server's validation.
var engine = []string{
	"github.com/krender/krender/render",
	"github.com/krender/krender/action",
	"github.com/krender/krender/files/loader",
	"github.com/krender/krender/files/userfs",
	"github.com/krender/krender/files/output",
	"github.com/krender/krender/model/profiles",
	"github.com/krender/krender/render/subst",
	"github.com/krender/krender/render/inject",
	"github.com/krender/krender/model/manifest",
}

// heavy are import-path prefixes the engine must not link: the API
// server's machinery and what it brings (gRPC, OpenTelemetry, Prometheus,
// CEL), the k8s.io/api types and strategicpatch (kubeapi has the few
// facts the engine needs, as generated tables), and krender's own packages
// of the API server's validation (krender-check's alone). Each one costs
// start-up time (package initialisation) and memory on every render.
// render, files and model cannot import the linter at all: it stands
// above them (internal/layers).
var heavy = []string{
	"google.golang.org/grpc",
	"go.opentelemetry.io/",
	"github.com/prometheus/",
	"github.com/google/cel-go/",
	"k8s.io/apiserver/",
	"k8s.io/apiextensions-apiserver/",
	"k8s.io/client-go/",
	"k8s.io/api/",
	"k8s.io/apimachinery/pkg/util/strategicpatch",
	"github.com/krender/krender/lint/crd",
	"github.com/krender/krender/lint/validator",
	"github.com/krender/krender/kube/kubescheme",
}

// TestEngineDependencies keeps heavy libraries out of the render engine's
// import graph (go list -deps), naming the chain of imports that brings
// one in.
func TestEngineDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		testtool.Missing(t, "the go command is not on PATH: cannot list the engine's dependencies")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, engine...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	if len(imports) < len(engine) {
		t.Fatalf("go list named %d packages", len(imports))
	}
	for _, pkg := range sortedKeys(imports) {
		if isHeavy(pkg) {
			t.Errorf("the engine links %s: %s", pkg, strings.Join(importChain(imports, pkg), " -> "))
		}
	}
}

func isHeavy(pkg string) bool {
	for _, h := range heavy {
		if pkg == strings.TrimSuffix(h, "/") || strings.HasPrefix(pkg, h) {
			return true
		}
	}
	return false
}

// importChain is a shortest chain of imports from an engine package to pkg.
func importChain(imports map[string][]string, pkg string) []string {
	from := map[string]string{}
	queue := append([]string(nil), engine...)
	for _, e := range engine {
		from[e] = ""
	}
	for len(queue) > 0 && !hasKey(from, pkg) {
		p := queue[0]
		queue = queue[1:]
		for _, q := range imports[p] {
			if !hasKey(from, q) {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	var chain []string
	for p := pkg; p != ""; p = from[p] {
		chain = append([]string{p}, chain...)
	}
	return chain
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

package subst

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	drone "github.com/drone/envsubst/v2"
	flux "github.com/fluxcd/pkg/envsubst"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// TestDialectsMatchTheirTools renders the dialect fixtures, modelled on
// public manifests (Grafana's $${__value.raw}, OpenTelemetry's
// $${env:VAR}, Kubernetes' $$(VAR), a Flux CI job's $$CI_DIR,
// $${PACKAGES_TO_TEST[@]}, $$((n + 1)) and kill $$, a Cluster API
// template), and requires of every object what its dialect's tool makes of
// the same object's text: GNU envsubst with the profile's names listed,
// fluxcd/pkg/envsubst as Flux's post-build substitution runs it, and
// drone/envsubst/v2 as clusterctl runs it. The fixtures define every name
// a tool would substitute, so that krender's rule for undefined names (kept
// for their reader, where those tools write "") does not enter.
func TestDialectsMatchTheirTools(t *testing.T) {
	for _, c := range []struct {
		dir    string
		oracle func(t *testing.T, text string, vars map[string]string) string
	}{
		{"dialect-envsubst", gnuEnvsubst},
		{"dialect-flux", func(t *testing.T, text string, vars map[string]string) string {
			out, err := flux.Eval(text, func(n string) (string, bool) { return vars[n], true })
			if err != nil {
				t.Fatalf("fluxcd/pkg/envsubst: %v", err)
			}
			return out
		}},
		{"dialect-clusterctl", func(t *testing.T, text string, vars map[string]string) string {
			out, err := drone.Eval(text, func(n string) string { return vars[n] })
			if err != nil {
				t.Fatalf("drone/envsubst/v2: %v", err)
			}
			return out
		}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join("../../testdata/subst", c.dir)
			p := loadProfile(t, filepath.Join(dir, "profile.yaml"))
			text, err := os.ReadFile(filepath.Join(dir, "app.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			objs, err := manifest.Parse(manifest.NewSource("app.yaml", text))
			if err != nil {
				t.Fatal(err)
			}
			vars := p.Vars.Map()
			var before []string
			for _, o := range objs {
				before = append(before, marshal(t, o.Node))
			}
			s := &manifest.Set{Vars: vars, Objects: objs}
			if err := New(p, false, objs).Apply(s); err != nil {
				t.Fatal(err)
			}
			compared := 0
			for i, o := range objs {
				if off, _ := optOut(o); off != "" {
					continue // krender's and Flux's opt-outs: every byte stays (TestOptOutAnnotations)
				}
				want := decode(t, c.oracle(t, before[i], vars))
				if got := decode(t, marshal(t, o.Node)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s/%s: krender\n%s\nits tool\n%s", o.Kind(), o.Name(), marshal(t, o.Node), c.oracle(t, before[i], vars))
				}
				compared++
			}
			if compared < 2 {
				t.Fatalf("only %d objects compared", compared)
			}
		})
	}
}

func loadProfile(t *testing.T, path string) *profiles.Profile {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := profiles.Decode(path, text)
	if err != nil {
		t.Fatal(err)
	}
	p := profiles.New()
	if err := p.Apply(path, doc, func(string, string, filepos.Pos) error { return nil }); err != nil {
		t.Fatal(err)
	}
	return p
}

func marshal(t *testing.T, n *yaml.Node) string {
	t.Helper()
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decode(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v in\n%s", err, text)
	}
	return v
}

// gnuEnvsubst is `envsubst 'SHELL-FORMAT'` with the profile's names.
func gnuEnvsubst(t *testing.T, text string, vars map[string]string) string {
	bin := testtool.Find(t, "KRENDER_ENVSUBST", []string{"envsubst"}, "GNU envsubst (apt-get install gettext-base); the envsubst dialect is not compared with it")
	var names, env []string
	for k, v := range vars {
		names = append(names, "${"+k+"}")
		env = append(env, k+"="+v)
	}
	sort.Strings(names)
	cmd := exec.Command(bin, strings.Join(names, " "))
	cmd.Env = append(env, "PATH="+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

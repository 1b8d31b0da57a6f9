package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/testing/testtool"
)

const argoDir = "../../../examples/argocd-cmp"

// cmpPlugin is the part of Argo CD's ConfigManagementPlugin the test runs.
type cmpPlugin struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		Discover struct {
			FileName string `yaml:"fileName"`
		} `yaml:"discover"`
		Generate struct {
			Command []string `yaml:"command"`
			Args    []string `yaml:"args"`
		} `yaml:"generate"`
	} `yaml:"spec"`
}

func readPlugin(t *testing.T) cmpPlugin {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(argoDir, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var p cmpPlugin
	if err := yaml.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.APIVersion != "argoproj.io/v1alpha1" || p.Kind != "ConfigManagementPlugin" || len(p.Spec.Generate.Command) == 0 {
		t.Fatalf("plugin.yaml: %+v", p)
	}
	return p
}

// argoApp is an Application source directory: the bundled templates,
// profiles and fragments and the plugin's marker.
func argoApp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"templates", "profiles", "inject"} {
		testtool.CopyTree(t, filepath.Join("../../..", sub), filepath.Join(dir, sub))
	}
	testtool.WriteFiles(t, dir, map[string]string{"krender.yaml": "# rendered by the krender Argo CD plugin\n"})
	return dir
}

// generate runs generate.command exactly as plugin.yaml states it, in the
// app directory, with Argo CD's variables and krender on PATH.
func generate(t *testing.T, p cmpPlugin, bin, dir string, env ...string) (string, string, error) {
	t.Helper()
	g := p.Spec.Generate
	cmd := exec.Command(g.Command[0], append(g.Command[1:], g.Args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(),
		"ARGOCD_APP_NAME=shop", "ARGOCD_APP_NAMESPACE=argocd", "ARGOCD_APP_SOURCE_PATH=apps/shop",
	}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func TestArgoCDPlugin(t *testing.T) {
	p := readPlugin(t)
	bin := testtool.Krender(t)
	dir := argoApp(t)
	if m, _ := filepath.Glob(filepath.Join(dir, p.Spec.Discover.FileName)); len(m) != 1 {
		t.Fatalf("discover.fileName %q does not find the marker", p.Spec.Discover.FileName)
	}

	out, errs, err := generate(t, p, bin, dir, "ARGOCD_ENV_KRENDER_PROFILE=profiles/dev.yaml", "ARGOCD_ENV_KRENDER_TENANT=tenant-b")
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, errs)
	}
	// From here, dir is outside the repository's root: say it is the root.
	want, err := exec.Command(bin, "render", "--root", dir, "-p", filepath.Join(dir, "profiles/dev.yaml"), "-t", "tenant-b", filepath.Join(dir, "templates")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) || !strings.Contains(out, "tenant-b") {
		t.Fatalf("generate printed something else than krender render:\n%s", out)
	}
	// KRENDER_TENANT=* asks for every tenant of the profile in one Application.
	all, errs, err := generate(t, p, bin, dir, "ARGOCD_ENV_KRENDER_PROFILE=profiles/dev.yaml", "ARGOCD_ENV_KRENDER_TENANT=*")
	if err != nil {
		t.Fatalf("all tenants: %v\n%s", err, errs)
	}
	want, err = exec.Command(bin, "render", "--root", dir, "-p", filepath.Join(dir, "profiles/dev.yaml"), filepath.Join(dir, "templates")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if all != string(want) || !strings.Contains(all, "tenant-a") || !strings.Contains(all, "tenant-b") {
		t.Fatalf("KRENDER_TENANT=* printed something else than krender render of every tenant:\n%s", all)
	}
	// A profile without tenants needs no KRENDER_TENANT, and * means its one render.
	testtool.WriteFiles(t, dir, map[string]string{"plain/app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n"})
	for _, env := range [][]string{{"ARGOCD_ENV_KRENDER_PROFILE=profiles/base.yaml"}, {"ARGOCD_ENV_KRENDER_PROFILE=profiles/base.yaml", "ARGOCD_ENV_KRENDER_TENANT=*"}} {
		out, errs, err := generate(t, p, bin, dir, append(env, "ARGOCD_ENV_KRENDER_TEMPLATES=plain")...)
		if err != nil || !strings.Contains(out, "kind: ConfigMap") {
			t.Fatalf("%v: %v\n%s\n%s", env, err, errs, out)
		}
	}

	testtool.WriteFiles(t, dir, map[string]string{
		"broken/app.yaml":  "apiVersion: v1\nkind: Service\nmetadata:\n  name: ${SERVCE_NAME}\n",
		"nothing/app.yaml": "# no objects here\nkey: value\n",
	})
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"no profile", nil, "set KRENDER_PROFILE"},
		{"missing profile", []string{"ARGOCD_ENV_KRENDER_PROFILE=profiles/nope.yaml"}, "cannot read profile"},
		{"tenant profile without KRENDER_TENANT", []string{"ARGOCD_ENV_KRENDER_PROFILE=profiles/dev.yaml"}, "profile profiles/dev.yaml has tenants (tenant-a, tenant-b): set KRENDER_TENANT"},
		{"unknown tenant", []string{"ARGOCD_ENV_KRENDER_PROFILE=profiles/dev.yaml", "ARGOCD_ENV_KRENDER_TENANT=tenant-x"}, "no such tenant"},
		{"render error", []string{"ARGOCD_ENV_KRENDER_PROFILE=profiles/dev.yaml", "ARGOCD_ENV_KRENDER_TENANT=tenant-a", "ARGOCD_ENV_KRENDER_TEMPLATES=broken"}, "undefined variable ${SERVCE_NAME}"},
		{"no objects", []string{"ARGOCD_ENV_KRENDER_PROFILE=profiles/dev.yaml", "ARGOCD_ENV_KRENDER_TENANT=*", "ARGOCD_ENV_KRENDER_TEMPLATES=nothing"}, "rendered no objects"},
	} {
		out, errs, err := generate(t, p, bin, dir, c.env...)
		if err == nil || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: err %v, stdout %q, stderr %q; want a failure, nothing on stdout, %q", c.name, err, out, errs, c.want)
		}
	}
}

// TestArgoCDSidecarImage: the image runs as uid 999 and carries plugin.yaml
// where argocd-cmp-server reads it (Docker cannot run here to build it).
func TestArgoCDSidecarImage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(argoDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	for _, want := range []string{
		"\nUSER 999:999\n",
		"COPY examples/argocd-cmp/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml\n",
		"go build -trimpath -o /out/krender ./cmd/krender",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	var patch struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Command         []string `yaml:"command"`
						SecurityContext struct {
							RunAsUser    int  `yaml:"runAsUser"`
							RunAsNonRoot bool `yaml:"runAsNonRoot"`
						} `yaml:"securityContext"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	b, err = os.ReadFile(filepath.Join(argoDir, "repo-server-patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &patch); err != nil {
		t.Fatal(err)
	}
	c := patch.Spec.Template.Spec.Containers
	if len(c) != 1 || c[0].SecurityContext.RunAsUser != 999 || !c[0].SecurityContext.RunAsNonRoot || strings.Join(c[0].Command, " ") != "/var/run/argocd/argocd-cmp-server" {
		t.Errorf("sidecar: %+v", c)
	}
}

package inject_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/model/profiles"
)

var regen = flag.Bool("regen-parity", false,
	"rewrite testdata/inject/seed-parity/stdout.golden from the real shell pipeline (needs yq and envsubst)")

const parityDir = "../../testdata/inject/seed-parity"

// TestShellPipelineParity runs the shell pipeline that `mode: append`
// replaces (envsubst, then yq del and yq += with a sed-filled fragment) with
// the real mikefarah yq on the bundled templates, and requires krender's
// output to be the same bytes. It also requires the pipeline's output to be
// the seed case's stdout.golden, so that golden always comes from the real
// pipeline, never from krender.
func TestShellPipelineParity(t *testing.T) {
	// Only the mikefarah yq that hack/tools.sh builds (or KRENDER_YQ) is the
	// reference: another yq on PATH (the Python wrapper shares the name) is not.
	built, _ := filepath.Abs("../../.cache/bin/yq")
	yq := testtool.Find(t, "KRENDER_YQ", []string{built}, "mikefarah yq v4.54.3 not built; the shell pipeline parity is not checked")
	envsubst := testtool.Find(t, "KRENDER_ENVSUBST", []string{"envsubst"}, "GNU envsubst not installed; the shell pipeline parity is not checked")

	profile := filepath.Join(parityDir, "profile.yaml")
	p, err := loader.Profile(filesys.OS, nil, profile)
	if err != nil {
		t.Fatal(err)
	}
	var in *profiles.Inject
	for i := range p.Inject {
		if p.Inject[i].Name.Value == "efs-zone" {
			in = &p.Inject[i]
		}
	}
	if in == nil || in.Mode.Value != "append" {
		t.Fatalf("%s must define inject efs-zone with mode: append", profile)
	}
	vars := p.Vars
	for _, tn := range p.Tenants {
		if tn.Name == "tenant-a" {
			vars = vars.Merge(tn.Vars)
		}
	}

	env := []string{"PATH=" + os.Getenv("PATH"), "YQ=" + yq, "ENVSUBST=" + envsubst, "TMPDIR=" + t.TempDir()}
	var format []string
	for _, v := range vars {
		format = append(format, "$"+v.Name)
		env = append(env, v.Name+"="+v.Value)
	}
	env = append(env, "SHELL_FORMAT="+strings.Join(format, " "))
	for name, v := range in.Values {
		env = append(env, name+"="+v.Value.Value)
	}
	var exclude []string
	for _, x := range in.Exclude {
		exclude = append(exclude, x.Value)
	}
	env = append(env, "EFS_ZONE_EXCLUDE_APPS="+strings.Join(exclude, " "))

	cmd := exec.Command("bash", filepath.Join(parityDir, "pipeline.sh"), "../../templates", in.FragmentPath)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("shell pipeline: %v\n%s", err, stderr.String())
	}

	golden := filepath.Join(parityDir, "stdout.golden")
	if *regen {
		if err := os.WriteFile(golden, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, want) {
		t.Errorf("%s is not what the real pipeline prints now (regenerate with -regen-parity and review):\n%s", golden, lineDiff(string(kept), string(want)))
	}

	e, err := action.Engine(filesys.OS, action.Options{Profile: profile, Tenants: []string{"tenant-a"}, Paths: []string{"../../templates"}})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := output.WriteStream(e, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("krender differs from the shell pipeline:\n%s", lineDiff(string(want), got.String()))
	}
}

func lineDiff(want, got string) string { return udiff.Unified("want", "got", want, got) }

package action

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
)

// TestLibraryGetsTheCLIsYq: a program that calls Engine as a library, and
// sets nothing of yqlib's itself, gets the yq the CLI runs: eval works, and
// what it parses can read no environment (the actions settle yqlib's
// switches, not the command line).
func TestLibraryGetsTheCLIsYq(t *testing.T) {
	t.Setenv("KRENDER_SECRET", "s3cret")
	run := func(where string) (string, error) {
		fsys := fstest.MapFS{
			"p.yaml":    {Data: []byte("inject:\n  - name: mark\n    fragment: frag.yaml\n    where: '" + where + "'\n    into: .metadata\n")},
			"frag.yaml": {Data: []byte("labels:\n  marked: \"yes\"\n")},
			"t.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {krender.io/hash: \"off\"}\ndata: {k: v}\n" +
				"---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n  annotations: {krender.io/hash: \"off\"}\n")},
		}
		e, err := Engine(filesys.NewMem(fsys), Options{Profile: "p.yaml", Paths: []string{"t.yaml"}})
		if err != nil {
			return "", err
		}
		var out bytes.Buffer
		_, err = output.WriteStream(e, &out)
		return out.String(), err
	}
	plain, err := run(`.kind == "ConfigMap"`)
	if err != nil || !strings.Contains(plain, "marked") {
		t.Fatalf("without eval: %v\n%s", err, plain)
	}
	if got, err := run(`eval(".kind") == "ConfigMap"`); err != nil || got != plain {
		t.Errorf("with eval: %v\n%s\nwant\n%s", err, got, plain)
	}
	if got, err := run(`eval("env(KRENDER_SECRET)") == "s3cret"`); err == nil || !strings.Contains(err.Error(), "env operations have been disabled") || strings.Contains(got, "marked") {
		t.Errorf("eval reached the environment: %v\n%s", err, got)
	}
}

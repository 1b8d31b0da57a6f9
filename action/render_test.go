package action_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
)

// TestRenderAction: a program gets `krender render`'s output, its
// --check DIR verdict and its refusals from the action alone, without the
// command line.
func TestRenderAction(t *testing.T) {
	tpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  n: ${N}\n"
	fsys := fstest.MapFS{
		"p.yaml":   &fstest.MapFile{Data: []byte("tenants:\n  a: {vars: {N: one}}\n")},
		"t/c.yaml": &fstest.MapFile{Data: []byte(tpl)},
	}
	mem := filesys.NewMem(fsys)
	run := func(r action.Render) (*action.RenderResult, error) {
		r.Options = action.Options{Profile: "p.yaml", Paths: []string{"t"}}
		r.FS = mem
		return r.Run(context.Background())
	}

	var stream bytes.Buffer
	if _, err := run(action.Render{Stdout: &stream}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stream.String(), "n: one") {
		t.Errorf("stream:\n%s", stream.String())
	}

	if _, err := run(action.Render{Output: "rendered"}); err != nil {
		t.Fatal(err)
	}
	res, err := run(action.Render{Check: "rendered"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Diff == nil || !res.Diff.Empty() {
		t.Errorf("--check of the directory just written: %+v, want an empty diff", res.Diff)
	}

	fsys["p.yaml"] = &fstest.MapFile{Data: []byte("tenants:\n  a: {vars: {N: two}}\n")}
	if res, err = run(action.Render{Check: "rendered"}); err != nil {
		t.Fatal(err)
	}
	if res.Diff == nil || res.Diff.Empty() {
		t.Error("--check after the profile changed: no difference")
	}

	for want, r := range map[string]action.Render{
		"--update goes with --check DIR":    {Update: true},
		"-o elsewhere goes without --check": {Check: "rendered", Output: "elsewhere", OutputGiven: true},
		"kubectl's output format":           {Output: "yaml"},
		"template":                          {Output: "t"}, // what the render reads
	} {
		if _, err := run(r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", r, err, want)
		}
	}
}

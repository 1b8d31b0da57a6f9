package action

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
)

// TestStdinPath: "-" reads Options.Stdin once, however many tenants render
// it, and names its positions <stdin>; without Stdin it is a file name.
func TestStdinPath(t *testing.T) {
	fsys := fstest.MapFS{
		"p.yaml": &fstest.MapFile{Data: []byte("tenants:\n  a: {vars: {N: a}}\n  b: {vars: {N: b}}\n")},
		"-":      &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-a-file}\n")},
	}
	stdin := strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${N}\n")
	e, err := Engine(filesys.NewMem(fsys), Options{Profile: "p.yaml", Paths: []string{loader.StdinPath}, Stdin: stdin})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Templates) != 1 || e.Templates[0].Src.Path != loader.StdinName {
		t.Fatalf("templates from stdin: %d, source %q", len(e.Templates), e.Templates[0].Src.Path)
	}
	for _, u := range e.Units {
		s, err := e.Render(u)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.Objects[0].Name(), "cm-"+u.Tenant; got != want {
			t.Errorf("tenant %s: name %q, want %q", u.Tenant, got, want)
		}
	}

	e, err = Engine(filesys.NewMem(fsys), Options{Profile: "p.yaml", Paths: []string{loader.StdinPath}})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Templates[0].Src.Path; got != "-" {
		t.Errorf("without Stdin, - is read as %q, want the file -", got)
	}

	_, err = Engine(filesys.NewMem(fsys), Options{Profile: "p.yaml", Paths: []string{loader.StdinPath, "x.yaml", loader.StdinPath}, Stdin: strings.NewReader("")})
	if err == nil || !strings.Contains(err.Error(), "can be read only once") {
		t.Errorf("- twice: %v", err)
	}
}

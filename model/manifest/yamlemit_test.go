package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/model/yamlemit"
)

// repoYAML is every YAML file of the repository that krender parses
// (templates, examples, test data, golden outputs), relative to model/manifest/.
func repoYAML(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../.." && (strings.HasPrefix(name, ".") || name == "fuzz") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml":
			files = append(files, path)
		case ".golden":
			if strings.HasPrefix(d.Name(), "stdout") {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFastEmitterMatchesLibrary: every object of every YAML file in the
// repository, parsed as krender parses, prints the same through yamlemit
// as through go-yaml's Dumper, as one stream and each as a file of its own.
func TestFastEmitterMatchesLibrary(t *testing.T) {
	files := repoYAML(t)
	if len(files) < 300 {
		t.Fatalf("found only %d YAML files", len(files))
	}
	objects, declined := 0, 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := Parse(NewSource(f, text))
		if err != nil {
			continue // not krender input (or deliberately broken)
		}
		objects += len(objs)
		for _, o := range objs {
			if _, ok := fastDump(o); !ok {
				declined++
			}
		}
		compareStreams(t, f, objs)
	}
	t.Logf("%d files, %d objects, %d declined by the fast path", len(files), objects, declined)
	if objects < 1000 || declined*10 > objects {
		t.Errorf("%d objects, %d declined: the comparison covers too little", objects, declined)
	}
}

func fastDump(o *Object) ([]byte, bool) {
	foot := o.Node.FootComment
	o.Node.FootComment = ""
	defer func() { o.Node.FootComment = foot }()
	return yamlemit.Append(nil, o.Node)
}

// compareStreams prints objs with the fast path first (go-yaml's Dumper
// changes the tags and styles of the tree it prints) and then with go-yaml.
func compareStreams(t *testing.T, f string, objs []*Object) {
	t.Helper()
	var fast, each []string
	b, err := Marshal(objs)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	fast = append(fast, string(b))
	for _, o := range objs {
		b, err := MarshalObject(o)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		each = append(each, string(b))
	}
	lib := func(objs []*Object, noTrailer bool) string {
		var sb strings.Builder
		enc := NewEncoder(&sb)
		enc.UseLibrary()
		enc.noTrailer = noTrailer
		for _, o := range objs {
			if err := enc.Encode(o); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if err := enc.Flush(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return sb.String()
	}
	if want := lib(objs, false); fast[0] != want {
		t.Errorf("%s: stream differs\nfast:\n%s\ngo-yaml:\n%s", f, fast[0], want)
	}
	for i, o := range objs {
		if want := lib([]*Object{o}, true); each[i] != want {
			t.Errorf("%s: object %d differs\nfast:\n%s\ngo-yaml:\n%s", f, i, each[i], want)
		}
	}
}

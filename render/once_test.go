package render

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/mikefarah/yq/v4/pkg/yqlib"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
)

// countingFS counts the reads of every file.
type countingFS struct {
	*filesys.Mem
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingFS) ReadFile(name string) ([]byte, error) {
	c.mu.Lock()
	c.reads[filepath.ToSlash(filepath.Clean(name))]++
	c.mu.Unlock()
	return c.Mem.ReadFile(name)
}

// Open counts too: the engine opens files to read at most a limit's worth.
func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.reads[filepath.ToSlash(filepath.Clean(name))]++
	c.mu.Unlock()
	return c.Mem.Open(name)
}

// countingParser counts yq expression compilations.
type countingParser struct {
	yqlib.ExpressionParserInterface
	n atomic.Int64
}

func (c *countingParser) ParseExpression(expr string) (*yqlib.ExpressionNode, error) {
	c.n.Add(1)
	return c.ExpressionParserInterface.ParseExpression(expr)
}

// Templates, profiles and fragments are read (and so parsed) once per run,
// and yq expressions compiled while the engine is built, however many
// tenants render; rendering never changes the parsed templates, which every
// worker shares.
func TestInputsAreParsedOncePerRun(t *testing.T) {
	yqlib.InitExpressionParser()
	parser := &countingParser{ExpressionParserInterface: yqlib.ExpressionParser}
	yqlib.ExpressionParser = parser
	defer func() { yqlib.ExpressionParser = parser.ExpressionParserInterface }()

	f := fleetgen.Fleet{Apps: 3, Tenants: 25}
	files := fstest.MapFS{}
	for name, text := range f.Files() {
		files[name] = &fstest.MapFile{Data: text}
	}
	fsys := &countingFS{Mem: filesys.NewMem(files), reads: map[string]int{}}
	e, err := load(fsys, Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}})
	if err != nil {
		t.Fatal(err)
	}
	before, err := manifest.Marshal(e.Templates)
	if err != nil {
		t.Fatal(err)
	}
	compiled := parser.n.Load()
	e.Workers = 4
	for range 2 {
		if _, err := e.Each(func(*manifest.Set) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n := parser.n.Load() - compiled; n > 0 {
		t.Errorf("%d yq expressions compiled while rendering %d tenants (%d when the engine was built)", n, f.Tenants, compiled)
	}
	for name, n := range fsys.reads {
		if n != 1 {
			t.Errorf("%s read %d times for one run of %d tenants", name, n, f.Tenants)
		}
	}
	for name := range f.Files() {
		if filepath.Dir(filepath.Dir(name)) == fleetgen.AppsDir && fsys.reads[name] == 0 {
			t.Errorf("template %s was never read", name)
		}
	}
	for _, name := range []string{fleetgen.Profile, fleetgen.Fragment} {
		if fsys.reads[name] != 1 {
			t.Errorf("%s read %d times, want once", name, fsys.reads[name])
		}
	}
	if compiled == 0 {
		t.Error("the fleet profile's inject expressions were never compiled: the count proves nothing")
	}
	after, err := manifest.Marshal(e.Templates)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("rendering changed the parsed templates:\n%s", udiff.Unified("before", "after", string(before), string(after)))
	}
}

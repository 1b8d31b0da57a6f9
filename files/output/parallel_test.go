package output

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// fleetEngine builds an engine over a generated fleet held in memory.
func fleetEngine(t testing.TB, f fleetgen.Fleet, opts engineOptions) *render.Engine {
	t.Helper()
	opts.Profile = fleetgen.Profile
	opts.Paths = []string{fleetgen.AppsDir}
	return mustEngine(t, filesys.NewMem(f.FS()), opts)
}

// serialStream is the output as one encoder writes it when rendering the
// units one after another: what the parallel writer must reproduce.
func serialStream(t *testing.T, e *render.Engine) []byte {
	t.Helper()
	var all []*manifest.Object
	for _, u := range e.Units {
		s, err := e.Render(u)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s.Objects...)
	}
	b, err := manifest.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParallelOutputMatchesSerial(t *testing.T) {
	f := fleetgen.Fleet{Apps: 4, Tenants: 37}
	e := fleetEngine(t, f, engineOptions{})
	want := serialStream(t, e)
	if n := bytes.Count(want, []byte("\nkind: ")) + bytes.Count(want[:6], []byte("kind: ")); n == 0 {
		t.Fatal("the generated fleet rendered no objects")
	}
	var wantFiles map[string][]byte
	var wantOrder []string
	for _, workers := range []int{1, 2, 3, 8, 64} {
		e.Workers = workers
		sameStream(t, e, want)
		files, order, _, err := Files(e)
		if err != nil {
			t.Fatal(err)
		}
		if len(order) != f.Objects() {
			t.Fatalf("%d workers: %d files, want %d", workers, len(order), f.Objects())
		}
		if wantFiles == nil {
			wantFiles, wantOrder = files, order
			continue
		}
		if strings.Join(order, "\n") != strings.Join(wantOrder, "\n") {
			t.Fatalf("%d workers: file order differs from 1 worker", workers)
		}
		for name, text := range wantFiles {
			if !bytes.Equal(files[name], text) {
				t.Fatalf("%d workers: %s differs from 1 worker", workers, name)
			}
		}
	}
}

// A document whose leading comments hold its own `---` must not get a
// second one where two tenants' parts of the stream meet.
func TestStreamJoinsUnitsLikeOneEncoder(t *testing.T) {
	fsys := fstest.MapFS{
		"p.yaml":   {Data: []byte("tenants:\n  a: {}\n  b: {}\n  c: {}\n")},
		"one.yaml": {Data: []byte("---\n# first\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n# second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n")},
	}
	e := mustEngine(t, filesys.NewMem(fsys), engineOptions{Profile: "p.yaml", Paths: []string{"one.yaml"}})
	want := serialStream(t, e)
	for _, workers := range []int{1, 3} {
		e.Workers = workers
		sameStream(t, e, want)
	}
}

// sameStream requires the engine's stream, with its current workers, to be want.
func sameStream(t *testing.T, e *render.Engine, want []byte) {
	t.Helper()
	var out bytes.Buffer
	if _, err := (Writer{FS: &filesys.Mem{}}).WriteStream(e, &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("%d workers: stream differs from a serial render:\n%s", e.Workers,
			udiff.Unified("serial", "parallel", string(want), out.String()))
	}
}

func TestFirstFailingTenantInOrderIsReported(t *testing.T) {
	f := fleetgen.Fleet{Apps: 2, Tenants: 30}
	files := f.Files()
	// EXTRA is defined for every tenant but the 5th and the 23rd.
	prof := strings.Replace(string(files[fleetgen.Profile]), "PUBLIC_HOST:", "EXTRA: x, PUBLIC_HOST:", -1)
	prof = strings.Replace(prof, "EXTRA: x, PUBLIC_HOST: tenant-0005", "PUBLIC_HOST: tenant-0005", 1)
	prof = strings.Replace(prof, "EXTRA: x, PUBLIC_HOST: tenant-0023", "PUBLIC_HOST: tenant-0023", 1)
	files[fleetgen.Profile] = []byte(prof)
	app := "apps/app-02/service.yaml"
	files[app] = append(files[app], []byte("  externalName: ${EXTRA}\n")...)
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: text}
	}
	e := mustEngine(t, filesys.NewMem(fsys), engineOptions{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}})
	for _, workers := range []int{1, 2, 7} {
		e.Workers = workers
		var out bytes.Buffer
		_, err := (Writer{FS: &filesys.Mem{}}).WriteStream(e, &out)
		if err == nil || !strings.Contains(err.Error(), "(tenant tenant-0005)") || strings.Contains(err.Error(), "tenant-0023") {
			t.Fatalf("%d workers: want only tenant-0005's error, got %v", workers, err)
		}
		if !strings.HasPrefix(err.Error(), app+":") {
			t.Fatalf("%d workers: error does not name the template: %v", workers, err)
		}
		if out.Len() != 0 {
			t.Fatalf("%d workers: %d bytes written despite the failure", workers, out.Len())
		}
	}
}

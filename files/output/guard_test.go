package output

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
)

const clash = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: a}\n---\n" +
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: b}\n---\n" +
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" +
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y, namespace: a}\n"

// One kind and name in several namespaces: a file each, named with the
// namespace whatever the order of the templates; the others keep their names.
func TestFilesUniquePerNamespace(t *testing.T) {
	docs := strings.Split(clash, "---\n")
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}} {
		var text []string
		for _, i := range order {
			text = append(text, docs[i])
		}
		e := engine(t, map[string]string{"p.yaml": "namespace: team\nhash: {mode: \"off\"}\n", "a.yaml": strings.Join(text, "---\n")})
		files, names, _, err := Files(e)
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(names)
		if want := []string{"configmap-x_a.yaml", "configmap-x_b.yaml", "configmap-x_team.yaml", "configmap-y.yaml"}; !reflect.DeepEqual(names, want) {
			t.Fatalf("order %v: files %v, want %v", order, names, want)
		}
		if !strings.Contains(string(files["configmap-x_b.yaml"]), "namespace: b") || !strings.Contains(string(files["configmap-x_team.yaml"]), "namespace: team") {
			t.Fatalf("wrong objects in files: %q", files)
		}
	}
	// No valid name holds an underscore; an invalid one that collides is
	// refused, never written over.
	e := engine(t, map[string]string{"p.yaml": "hash: {mode: \"off\"}\n", "a.yaml": clash + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x_a}\n"})
	if _, _, _, err := Files(e); err == nil || !strings.Contains(err.Error(), `a.yaml:17:1: ConfigMap "x_a" (namespace default) is rendered twice into configmap-x_a.yaml (first from a.yaml:1:1)`) {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestCheckFormatWord(t *testing.T) {
	mem := &filesys.Mem{}
	if err := mem.MkdirAll("json", 0o755); err != nil {
		t.Fatal(err)
	}
	w := Writer{FS: mem}
	for arg, refused := range map[string]bool{
		"yaml": true, "name": true, "wide": true, "jsonpath={.metadata.name}": true,
		"json": false, "./yaml": false, "yamls": false, "rendered": false,
	} {
		err := w.CheckFormatWord(arg)
		if refused != (err != nil) {
			t.Errorf("%s: %v", arg, err)
		}
		if err != nil && !strings.Contains(err.Error(), "krender writes YAML to stdout by default") {
			t.Errorf("%s: no hint: %v", arg, err)
		}
	}
}

// A marker may only list names krender writes: editing it cannot make
// krender delete anything else.
func TestMarkerListsOnlyKrendersNames(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	for _, line := range []string{"../p.yaml", "/etc/x.yaml", "a/b/c.yaml", "README.md", "./x.yaml", "t1//x.yaml", "../x.yaml"} {
		mem := &filesys.Mem{}
		oldDir(t, mem)
		name := "out/" + strings.TrimPrefix(line, "/")
		if line == "README.md" {
			if err := writeAll(mem, name, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeAll(mem, "out/"+Marker, []byte("# comment\nt1/configmap-a.yaml\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := tree(t, mem, ".")
		_, err := (Writer{FS: mem}).WriteDir(e, "out")
		if err == nil || !strings.Contains(err.Error(), "out/"+Marker+":3:1: ") {
			t.Errorf("marker listing %s: %v", line, err)
		}
		if after := tree(t, mem, "."); !reflect.DeepEqual(after, before) {
			t.Errorf("marker listing %s: the tree changed", line)
		}
	}
}

// The working directory (the file system's), its parents and the inputs
// are refused on paths alone, before anything is read or written.
func TestGuardPlaces(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(repo, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(filepath.Dir(repo), "etc", "krender", "p.yaml")
	g := Guard{Inputs: []Input{
		{Name: "templates", What: "template", Dir: true},
		{Name: profile, What: "profile"},
	}}
	for dir, want := range map[string]string{
		".":                                 "is the current directory",
		repo:                                "is the current directory",
		"..":                                "holds the current directory",
		"/":                                 "holds the current directory",
		"templates":                         "is the templates directory templates",
		"templates/out":                     "is inside the templates directory templates",
		filepath.Dir(filepath.Dir(profile)): "holds the profile " + profile,
		"sub/../templates":                  "is the templates directory templates",
	} {
		_, err := (Writer{FS: filesys.ReadOnly(filesys.Dir(repo)), Guard: g}).WriteDir(e, dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-o %s: %v, want %q", dir, err, want)
		}
	}
	if _, err := (Writer{FS: filesys.Dir(repo), Guard: g}).WriteDir(e, "rendered/prod"); err != nil {
		t.Fatalf("a directory of its own: %v", err)
	}
}

// In memory, the working directory is Mem's "." and paths are taken
// lexically: the guard holds there too.
func TestGuardPlacesInMemory(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	g := Guard{Inputs: []Input{{Name: "templates", What: "template", Dir: true}}}
	for dir, want := range map[string]string{
		".":             "is the current directory",
		"/":             "is the current directory",
		"templates":     "is the templates directory templates",
		"templates/out": "is inside the templates directory templates",
	} {
		mem := &filesys.Mem{}
		_, err := (Writer{FS: mem, Guard: g}).WriteDir(e, dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-o %s: %v, want %q", dir, err, want)
		}
		if got := tree(t, mem, "/"); len(got) != 1 {
			t.Errorf("-o %s wrote %v", dir, got)
		}
	}
}

// A file that appears in DIR while the render runs stops the swap.
func TestOwnershipCheckedAgainBeforeTheSwap(t *testing.T) {
	mem := &filesys.Mem{}
	before := oldDir(t, mem)
	err := (Writer{FS: mem}).replaceDirWith("out", func(tmp string) error {
		return writeAll(mem, "out/notes.txt", []byte("mine\n"), 0o644)
	})
	if err == nil || !strings.Contains(err.Error(), "holds notes.txt, which krender did not write") {
		t.Fatalf("got %v", err)
	}
	before["out/notes.txt"] = "mine\n"
	if after := tree(t, mem, "out"); !reflect.DeepEqual(after, before) {
		t.Fatalf("out changed:\n%v\nwas\n%v", after, before)
	}
	noTemporaries(t, mem, ".", "out")
}

// -o rendered, where rendered holds other renders' directories, suggests
// the one named after the profile, not the first in the listing.
func TestOtherRendersSuggestTheProfilesDirectory(t *testing.T) {
	e := engine(t, map[string]string{"p.yaml": threeTenants, "a.yaml": twoMaps})
	for profile, want := range map[string]string{
		"profiles/prod.yaml": "holds dev/, another render's output (it has its own .krender-output); krender replaces DIR whole and would delete it: did you mean -o rendered/prod?",
		"stg.yml":            "did you mean -o rendered/stg?",
		"":                   "did you mean -o rendered/dev?", // no profile known: the first
	} {
		mem := &filesys.Mem{}
		for _, env := range []string{"dev", "stg"} {
			if err := writeAll(mem, "rendered/"+env+"/"+Marker, []byte("configmap-a.yaml\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := writeAll(mem, "rendered/"+env+"/configmap-a.yaml", []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := (Writer{FS: mem, Guard: Guard{Profile: profile}}).WriteDir(e, "rendered")
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("profile %q: %v, want it to end %q", profile, err, want)
		}
	}
}

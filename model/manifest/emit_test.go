package manifest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// yqBinary finds the real mikefarah yq that `make tools` builds.
func yqBinary(t *testing.T) string {
	t.Helper()
	built, _ := filepath.Abs("../../.cache/bin/yq")
	return testtool.Find(t, "KRENDER_YQ", []string{built}, "mikefarah yq not built (run `make tools`); layout parity with yq not checked")
}

// TestLayoutMatchesYq: parsing and printing a file without changes gives the
// bytes `yq eval .` prints, so krender can replace yq pipelines byte for byte.
func TestLayoutMatchesYq(t *testing.T) {
	yq := yqBinary(t)
	files, _ := filepath.Glob("../../templates/*/*.yaml")
	layouts, _ := filepath.Glob("testdata/*.yaml")
	if len(files) < 5 || len(layouts) < 5 {
		t.Fatalf("found %d templates and %d layout files: the comparison would pass unread", len(files), len(layouts))
	}
	for _, f := range append(files, layouts...) {
		compareWithYq(t, yq, f)
	}
}

// TestStreamLayoutMatchesYq: files rendered into one stream are laid out as
// `yq eval . a.yaml b.yaml` prints them, so a file's trailing `---` stays
// between it and the next file, as an empty document.
func TestStreamLayoutMatchesYq(t *testing.T) {
	yq := yqBinary(t)
	for _, files := range [][]string{
		{"testdata/trailing-separator.yaml", "testdata/separators-between-and-after.yaml"},
		{"testdata/separators-between-and-after.yaml", "testdata/layout.yaml", "testdata/trailing-separator.yaml"},
		{"testdata/comment-after-separator.yaml", "testdata/empty-documents.yaml", "testdata/comment-after-separator.yaml"},
		{"testdata/empty-documents.yaml", "testdata/trailing-separator.yaml"},
	} {
		compareWithYq(t, yq, files...)
	}
}

func compareWithYq(t *testing.T, yq string, files ...string) {
	t.Helper()
	var objs []*Object
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Parse(NewSource(f, text))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o...)
	}
	got, err := Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(yq, append([]string{"eval", "."}, files...)...).Output()
	if err != nil {
		t.Fatalf("yq %s: %v", files, err)
	}
	if string(got) != string(want) {
		t.Errorf("%s: krender prints\n%s\nyq prints\n%s", files, got, want)
	}
}

// TestObjectFileHasNoTrailer: an object in a file of its own (-o DIR) does
// not carry the empty documents that followed it in its template.
func TestObjectFileHasNoTrailer(t *testing.T) {
	objs, err := Parse(NewSource("t.yaml", []byte("a: 1\n---\nb: 2\n---\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"a: 1\n", "b: 2\n"} {
		got, err := MarshalObject(objs[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("object %d: got %q, want %q", i, got, want)
		}
	}
}

// TestTrailerAfterLastCopy: copies of one document (a zone split) stand in
// one place of the template, so its trailing `---` is printed once, after them.
func TestTrailerAfterLastCopy(t *testing.T) {
	objs, err := Parse(NewSource("t.yaml", []byte("a: 1\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Marshal([]*Object{objs[0], objs[0].Clone()})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a: 1\n---\na: 1\n---\n\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestEmptyDocumentBeforeFirstObject: a null document before a file's first
// object stays a document of its own, in the object's leading content (where
// yq's `null` can only be a comment).
func TestEmptyDocumentBeforeFirstObject(t *testing.T) {
	objs, err := Parse(NewSource("t.yaml", []byte("null\n---\na: 1\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		objs []*Object
		want string
	}{
		{objs, "# null\n---\na: 1\n"},
		{[]*Object{{Node: objs[0].Node}, objs[0]}, "a: 1\n---\n# null\n---\na: 1\n"},
	} {
		got, err := Marshal(c.objs)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

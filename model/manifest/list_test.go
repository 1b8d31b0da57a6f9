package manifest

import (
	"strings"
	"testing"
)

func TestListItemsAreObjectsAndGoBackIntoTheirList(t *testing.T) {
	text := "# kubectl get -o yaml\napiVersion: v1\nkind: ConfigMapList\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: b}\n---\nkind: Service\nmetadata: {name: s}\n"
	objs, err := Parse(NewSource("l.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 || objs[0].Name() != "a" || objs[1].Name() != "b" || objs[2].Kind() != "Service" {
		t.Fatalf("want items a, b and the Service as objects, got %d objects", len(objs))
	}
	if objs[0].List == nil || objs[0].List != objs[1].List || objs[2].List != nil {
		t.Fatal("items must share their List; other documents have none")
	}
	if got := objs[1].Pos(objs[1].Node).String(); got != "l.yaml:6:5" {
		t.Fatalf("an item keeps its template position, got %s", got)
	}
	// Stages copy items and change them; the List as parsed stays as it was.
	a, b := objs[0].Clone(), objs[1].Clone()
	Lookup(b.Node, "metadata", "name").Value = "b-1"
	out, err := Marshal([]*Object{a, b, objs[2]})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(text, "name: b}", "name: b-1}", 1)
	if string(out) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	if again, _ := Marshal(objs); string(again) != text {
		t.Fatalf("the parsed List changed:\n%s", again)
	}
}

func TestOnlyListShapedDocumentsAreLists(t *testing.T) {
	for name, text := range map[string]string{
		"empty items":      "apiVersion: v1\nkind: List\nitems: []\n",
		"a spec":           "apiVersion: example.com/v1\nkind: AllowList\nspec: {}\nitems:\n  - {kind: ConfigMap}\n",
		"scalar items":     "apiVersion: v1\nkind: List\nitems: [a, b]\n",
		"not a list kind":  "apiVersion: v1\nkind: ConfigMap\nitems:\n  - {kind: ConfigMap}\n",
		"items not a list": "apiVersion: v1\nkind: List\nitems: {kind: ConfigMap}\n",
	} {
		objs, err := Parse(NewSource("x.yaml", []byte(text)))
		if err != nil || len(objs) != 1 || objs[0].List != nil {
			t.Errorf("%s: want one ordinary document, got %d objects (err %v)", name, len(objs), err)
		}
	}
}

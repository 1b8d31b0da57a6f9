package redact

import (
	"strings"
	"testing"

	"github.com/krender/krender/model/manifest"
)

func TestStage(t *testing.T) {
	src := manifest.NewSource("a.yaml", []byte(`apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Secret
    metadata: {name: s}
    data:
      ok: aHVudGVyMg==
      wrapped: |
        aHVudG
        VyMg==
      broken: "not base64!"
    stringData:
      plain: hunter2
      nested: {a: b}
  - apiVersion: example.com/v1
    kind: Secret
    metadata: {name: not-core}
    data: {x: hunter2}
`))
	objs, err := manifest.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	s := &manifest.Set{Objects: objs}
	if err := (Stage{Values: []string{"hunter2"}}).Apply(s); err != nil {
		t.Fatal(err)
	}
	out, err := manifest.Marshal(s.Objects)
	if err != nil {
		t.Fatal(err)
	}
	h := Digest([]byte("hunter2"))
	for _, want := range []string{
		"ok: " + h, "wrapped: " + h, "plain: " + h, // base64 and text of the same bytes read alike
		"broken: " + Digest([]byte("not base64!")),
		"nested: {a: b}",
		`data: {x: "<redacted>"}`, // not a core Secret: masked like any other field
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0].Msg, `Secret "not-core"`) {
		t.Errorf("notes: %v", s.Notes)
	}
}

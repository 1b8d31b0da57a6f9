package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/model/manifest"
)

func TestTextMasksEveryQuoting(t *testing.T) {
	cert := "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
	text := NewText([]string{`pa"ss<word>`, cert, "", "pa"})
	j, _ := json.Marshal(`x pa"ss<word> y`)
	for _, in := range []string{
		`plain pa"ss<word> here`,
		fmt.Sprintf("%q", `pa"ss<word>`),
		string(j),
		fmt.Sprintf("%q", cert),
		"line: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
	} {
		got := text.String(in)
		if strings.Contains(got, "ss<word") || strings.Contains(got, `ss\u003cword`) || strings.Contains(got, "MIIEvQ") {
			t.Errorf("%q → %q", in, got)
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("%q → %q: no mask", in, got)
		}
	}
	// The longer value wins over one inside it.
	if got := text.String(`pa"ss<word>`); got != Mask {
		t.Errorf("got %q", got)
	}
	var nilText *Text
	if nilText.String("x") != "x" || NewText(nil).String("x") != "x" {
		t.Error("no values: text unchanged")
	}
}

func TestWriterMasksAcrossWrites(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, func() *Text { return NewText([]string{"hunter2"}) })
	fmt.Fprint(w, "the password is hun")
	fmt.Fprint(w, "ter2\n")
	if b.Len() != 0 {
		t.Fatal("written before Flush")
	}
	if err := w.Flush(); err != nil || b.String() != "the password is <redacted>\n" {
		t.Fatalf("%q %v", b.String(), err)
	}
}

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

package crd

import (
	"os"
	"strings"
	"testing"
)

// TestUpdateTransitionRules: a rule on oldSelf refuses an update that
// changes the field, with the CRD's message, and lets the rest through.
func TestUpdateTransitionRules(t *testing.T) {
	crdText, err := os.ReadFile("../../testdata/diff/crd-transition/crds/databases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCatalog(parse(t, string(crdText)))
	if err != nil {
		t.Fatal(err)
	}
	db := "apiVersion: db.example.com/v1\nkind: Database\nmetadata: {name: orders, namespace: shop}\nspec: {engine: postgres, storage: 10Gi}\n"
	for _, c2 := range []struct {
		from, to, refused string
	}{
		{"engine: postgres", "engine: mysql", "engine is immutable"},
		{"storage: 10Gi", "storage: 20Gi", ""},
	} {
		u, err := c.Update(nil, parse(t, db)[0], parse(t, strings.Replace(db, c2.from, c2.to, 1))[0], "shop")
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c2.refused == "" && len(u.Refused) > 0:
			t.Errorf("%s → %s refused: %+v", c2.from, c2.to, u.Refused)
		case c2.refused != "" && (len(u.Refused) != 1 || u.Refused[0].Path != "spec.engine" || !strings.Contains(u.Refused[0].Msg, c2.refused)):
			t.Errorf("%s → %s: refused %+v, want spec.engine: %s", c2.from, c2.to, u.Refused, c2.refused)
		}
	}
	other := strings.Replace(db, "kind: Database", "kind: Cache", 1)
	if u, err := c.Update(nil, parse(t, other)[0], parse(t, other)[0], "shop"); err != nil || u.Known || len(u.Refused) > 0 {
		t.Errorf("a kind no CRD defines: %+v, %v", u, err)
	}
}

// TestCreate: a custom resource created under its CRD file is refused as
// the API server refuses it, in its words (each field's error; one strict
// decoding error for unknown fields, which stops the rest), and a
// deprecated version or a kind no file defines is no refusal.
func TestCreate(t *testing.T) {
	crdText, err := os.ReadFile("../../testdata/diff/crd-create/crds/databases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCatalog(parse(t, string(crdText)))
	if err != nil {
		t.Fatal(err)
	}
	db := "apiVersion: db.example.com/v1\nkind: Database\nmetadata: {name: orders, namespace: shop}\nspec: {engine: postgres, replicas: 2}\n"
	for _, c2 := range []struct {
		name, text string
		want       []string // "path: message"
	}{
		{"accepted", db, nil},
		{"a kind no file defines", strings.Replace(db, "kind: Database", "kind: Cache", 1), nil},
		{"a missing field and a bound", strings.Replace(db, "engine: postgres, replicas: 2", "replicas: 0", 1),
			[]string{"spec.engine: Required value", "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"}},
		{"unknown fields", strings.Replace(db, "replicas: 2", "replica: 2, size: 1, engine2: x", 1),
			[]string{`: Database in version "v1" cannot be handled as a Database: strict decoding error: unknown field "spec.engine2", unknown field "spec.replica", unknown field "spec.size"`}},
	} {
		t.Run(c2.name, func(t *testing.T) {
			ps, err := c.Create(parse(t, c2.text)[0], "shop")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Path+": "+p.Msg)
			}
			if strings.Join(got, "\n") != strings.Join(c2.want, "\n") {
				t.Errorf("refused\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c2.want, "\n"))
			}
		})
	}
}

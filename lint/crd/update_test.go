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
